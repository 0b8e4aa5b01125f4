package session_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
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

// staticAuth is an OAuthHandler with one token at a time; Authorize moves
// to the token the server wants now, as a refresh would.
type staticAuth struct {
	mu         sync.Mutex
	token      string
	next       func() string
	authorized int
}

func (a *staticAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: a.token}), nil
}

func (a *staticAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.authorized++
	a.token = a.next()
	return nil
}

// A Call whose token the server no longer takes asks the handler and tries
// once more, as the SDK's own requests do.
func TestCallOverHTTPReauthorizesOn401(t *testing.T) {
	var want atomic.Value
	want.Store("first")
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+want.Load().(string) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	a := &staticAuth{token: "stale", next: func() string { return want.Load().(string) }}
	s, err := session.Connect(context.Background(), session.Options{ID: "h", Transport: session.TransportHTTP, URL: ts.URL, OAuthHandler: a})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want.Store("second") // the server rotated the token
	before := a.authorized
	var res map[string]any
	if err := s.Call(context.Background(), "ping", map[string]any{}, &res); err != nil {
		t.Fatalf("Call after the token changed: %v", err)
	}
	if a.authorized != before+1 {
		t.Errorf("Authorize ran %d times for the Call, want 1", a.authorized-before)
	}
}
