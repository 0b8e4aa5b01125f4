package session_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every handshake declares the MCP Apps extension with its MIME type,
// next to the capabilities the session declared before.
func TestHandshakeDeclaresApps(t *testing.T) {
	got := make(chan *mcp.ClientCapabilities, 1)
	srv := mcp.NewServer(&mcp.Implementation{Name: "apps", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			got <- req.Session.InitializeParams().Capabilities
		},
	})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(h.Close)
	s, err := session.Connect(context.Background(), session.Options{ID: "apps", URL: h.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	caps := <-got
	ext, ok := caps.Extensions["io.modelcontextprotocol/ui"].(map[string]any)
	if !ok {
		t.Fatalf("extensions = %#v, want io.modelcontextprotocol/ui", caps.Extensions)
	}
	if mt := ext["mimeTypes"]; !reflect.DeepEqual(mt, []any{"text/html;profile=mcp-app"}) {
		t.Errorf("mimeTypes = %#v", mt)
	}
	if caps.Elicitation == nil {
		t.Error("the extension replaced the session's other capabilities")
	}
}
