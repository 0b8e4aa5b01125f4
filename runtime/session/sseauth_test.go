package session_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// protectedLegacy is a 2024-11-05 HTTP+SSE server (go-sdk's SSE handler)
// that wants "Authorization: Bearer <want>" on every request, GET and POST,
// and refuses the Streamable HTTP POST to its stream URL with 405.
type protectedLegacy struct {
	*httptest.Server
	mu         sync.Mutex
	want       string
	authorized atomic.Int32 // requests that carried the right token
	refused    atomic.Int32 // 401s
}

func newProtectedLegacy(t *testing.T, want string) *protectedLegacy {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	p := &protectedLegacy{want: want}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		want := p.want
		p.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+want {
			p.refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		p.authorized.Add(1)
		if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") == "" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		sse.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// The OAuth handler's token goes on every request of the legacy SSE
// transport, for transport "sse" and for the fallback from "http"; a 401
// asks the handler (a refresh) and the request goes again.
func TestOAuthOverLegacySSE(t *testing.T) {
	for _, transport := range []string{session.TransportSSE, session.TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			p := newProtectedLegacy(t, "good-token")
			a := &staticAuth{token: "good-token", next: func() string { return "good-token" }}
			s := connect(t, session.Options{ID: "old", Transport: transport, URL: p.URL, OAuthHandler: a})
			if info := s.Info(); info.Transport != session.TransportSSE {
				t.Fatalf("transport %q, want sse", info.Transport)
			}
			res, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "authorized"})
			if err != nil {
				t.Fatal(err)
			}
			if textOf(t, res) != "authorized" {
				t.Error("wrong echo")
			}
			if p.authorized.Load() < 3 {
				t.Errorf("only %d requests carried the token", p.authorized.Load())
			}

			// The server rotates its token: the next connect's stale token
			// gets a 401, the handler refreshes, the stream opens.
			p.mu.Lock()
			p.want = "rotated-token"
			p.mu.Unlock()
			a.mu.Lock()
			a.next = func() string { return "rotated-token" }
			a.mu.Unlock()
			s2 := connect(t, session.Options{ID: "old2", Transport: transport, URL: p.URL, OAuthHandler: a})
			if _, err := s2.CallTool(context.Background(), "echo", map[string]any{"text": "x"}); err != nil {
				t.Fatalf("after a refresh: %v", err)
			}
			if a.authorized == 0 {
				t.Error("the handler was never asked after the 401")
			}
		})
	}
}

// errNeedsLogin stands for the auth package's login-required error.
var errNeedsLogin = errors.New("login required (test)")

// refusingAuth has no token and cannot get one without the user.
type refusingAuth struct{}

func (refusingAuth) TokenSource(context.Context) (oauth2.TokenSource, error) { return nil, nil }

func (refusingAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	return errNeedsLogin
}

// A protected legacy SSE server without a token gives the same
// auth-required error as a protected Streamable HTTP server, so the runtime
// shows auth_required for both.
func TestLegacySSE401IsAuthRequired(t *testing.T) {
	legacy := newProtectedLegacy(t, "never-given")
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	streamable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(streamable.Close)
	for name, o := range map[string]session.Options{
		"http":         {ID: "h", Transport: session.TransportHTTP, URL: streamable.URL},
		"sse":          {ID: "s", Transport: session.TransportSSE, URL: legacy.URL},
		"sse fallback": {ID: "f", Transport: session.TransportHTTP, URL: legacy.URL + "/"},
	} {
		t.Run(name, func(t *testing.T) {
			o.OAuthHandler = refusingAuth{}
			_, err := session.Connect(context.Background(), o)
			if !errors.Is(err, errNeedsLogin) {
				t.Fatalf("err = %v, want the handler's login-required error", err)
			}
		})
	}
}

// With the runtime's own OAuth handler: a stored token reaches a protected
// legacy SSE server, and a static Authorization header with no stored
// record works too (it used to crash the DPoP wrapper, which found no
// record loaded: issue 12 item 1).
func TestRuntimeOAuthHandlerOverLegacySSE(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		stored  string
		headers map[string]string
	}{
		"stored token":  {stored: "stored-token-1"},
		"static header": {headers: map[string]string{"Authorization": "Bearer stored-token-1"}},
	} {
		t.Run(name, func(t *testing.T) {
			p := newProtectedLegacy(t, "stored-token-1")
			store := auth.NewMemoryStore()
			key := auth.Key{ServerID: "rt", URL: p.URL}
			if tc.stored != "" {
				if err := store.Save(ctx, key, &auth.Record{Token: &auth.Token{AccessToken: tc.stored, TokenType: "Bearer", ExpiresAt: time.Now().Add(time.Hour)}}); err != nil {
					t.Fatal(err)
				}
			}
			h, err := auth.New(auth.Options{ServerID: "rt", ServerURL: key.URL, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			s := connect(t, session.Options{ID: "rt", Transport: session.TransportSSE, URL: p.URL, OAuthHandler: h, Headers: tc.headers})
			if _, err := s.CallTool(ctx, "echo", map[string]any{"text": "x"}); err != nil {
				t.Fatal(err)
			}
			if p.refused.Load() != 0 {
				t.Errorf("%d requests went without the token", p.refused.Load())
			}
		})
	}
}
