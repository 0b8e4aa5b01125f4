package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Call reaches the server over both transports: a method it knows answers,
// an extension method it lacks gets the server's own "method not found",
// and the SDK's own requests keep working around it.
func TestCallOverHTTPAndStdio(t *testing.T) {
	ts := newTestServer(t)
	for name, opts := range map[string]session.Options{
		"http":  {ID: "h", Transport: session.TransportHTTP, URL: ts.url()},
		"stdio": stdioOptions(t, nil),
	} {
		t.Run(name, func(t *testing.T) {
			s, err := session.Connect(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			var res map[string]any
			if err := s.Call(ctx, "ping", map[string]any{}, &res); err != nil {
				t.Fatalf("ping through Call: %v", err)
			}
			// The go-sdk server refuses unknown methods: over stdio with
			// a JSON-RPC error, over HTTP with a plain 400.
			err = s.Call(ctx, "skills/list", map[string]any{}, &res)
			var rpcErr *jsonrpc.Error
			switch {
			case err == nil:
				t.Fatal("an unknown method succeeded")
			case name == "stdio" && (!errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound):
				t.Fatalf("stdio: %v, want method not found", err)
			case name == "http" && !strings.Contains(err.Error(), "400"):
				t.Fatalf("http: %v, want the server's 400", err)
			}
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("SDK requests after Call: %v", err)
			}
		})
	}
}
