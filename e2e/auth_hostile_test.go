package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	hostauth "github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/tokenstore"
)

// The hostile authorization-server suite: Go servers written for the test,
// each misbehaving in one way, against the real OAuth handler, the real file
// token store and a go-sdk client and server speaking MCP through them.

// hostileAS is an authorization server whose token endpoint can be told to
// misbehave. It issues opaque tokens that its protected MCP server checks.
type hostileAS struct {
	srv *httptest.Server

	mu        sync.Mutex
	mode      string // "" answers properly; see tokenModes
	issued    int
	valid     map[string]bool // access tokens the resource accepts
	refreshes map[string]bool // refresh tokens still good
	tokenHits int
}

// tokenModes are the ways the token endpoint fails without saying anything
// about the credentials (issue 12 item 4).
var tokenModes = []string{"503", "500-invalid_grant", "html-200", "html-404", "hang"}

func startHostileAS(t *testing.T) *hostileAS {
	t.Helper()
	as := &hostileAS{valid: map[string]bool{}, refreshes: map[string]bool{}}
	mux := http.NewServeMux()
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"issuer":                                as.srv.URL,
			"authorization_endpoint":                as.srv.URL + "/authorize",
			"token_endpoint":                        as.srv.URL + "/token",
			"registration_endpoint":                 as.srv.URL + "/register",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		writeJSON(w, 201, map[string]any{"client_id": "hostile-client", "redirect_uris": body["redirect_uris"], "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		red, _ := url.Parse(q.Get("redirect_uri"))
		rq := red.Query()
		rq.Set("code", "the-code")
		rq.Set("state", q.Get("state"))
		red.RawQuery = rq.Encode()
		http.Redirect(w, r, red.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", as.token)
	return as
}

func (as *hostileAS) setMode(m string) {
	as.mu.Lock()
	as.mode = m
	as.mu.Unlock()
}

func (as *hostileAS) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	as.mu.Lock()
	as.tokenHits++
	mode := as.mode
	as.mu.Unlock()
	switch mode {
	case "503":
		w.Header().Set("Retry-After", "2")
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	case "500-invalid_grant":
		writeJSON(w, 500, map[string]string{"error": "invalid_grant", "error_description": "the database is down"})
		return
	case "html-200":
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><title>Hotel WiFi</title><p>Accept the terms to continue</p></html>")
		return
	case "html-404":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "<html><h1>404 Not Found</h1><hr>nginx</html>")
		return
	case "hang":
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
		return
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		if !as.refreshes[rt] {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(as.refreshes, rt) // rotation
	default:
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	as.issued++
	access, refresh := fmt.Sprintf("access-%d", as.issued), fmt.Sprintf("refresh-%d", as.issued)
	as.valid[access], as.refreshes[refresh] = true, true
	writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh})
}

func (as *hostileAS) accepts(tok string) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.valid[tok]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// protectedEcho is a go-sdk MCP server with an echo tool that takes only
// tokens as issued; its metadata names as.
func protectedEcho(t *testing.T, as *hostileAS) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	verify := func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		if !as.accepts(token) {
			return nil, sdkauth.ErrInvalidToken
		}
		return &sdkauth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	prm := srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/mcp", sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{ResourceMetadataURL: prm})(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/mcp", AuthorizationServers: []string{as.srv.URL},
	}))
	return srv.URL + "/mcp"
}

// followRedirect is a browser that lets the authorization server redirect
// it and reports where it landed, without a callback listener.
type followRedirect struct{}

func (followRedirect) RedirectURI(context.Context, string) (string, error) {
	return "http://127.0.0.1:9/callback", nil
}

func (followRedirect) Login(ctx context.Context, req *hostauth.LoginRequest) (*hostauth.CallbackResult, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, req.URL, nil)
	resp, err := c.Do(hr)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	return hostauth.ParseCallback(u.Query()), nil
}

// testClock is a settable clock for the handler: tokens expire when the
// test says so.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func echo(ctx context.Context, cs *mcp.ClientSession, text string) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	if err != nil {
		return "", err
	}
	if len(res.Content) == 0 {
		return "", errors.New("empty result")
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return "", errors.New("not text")
	}
	return tc.Text, nil
}

// A refresh answered by 503, by 500 with {"error":"invalid_grant"}, by a
// captive portal's HTML 200, by a proxy's HTML 404, or not at all keeps the
// refresh token in the file store; the call fails with a transient error
// that says so, and once the server answers again the next call works
// without a login.
func TestAuthHostileRefreshKeepsCredentials(t *testing.T) {
	for _, mode := range tokenModes {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			as := startHostileAS(t)
			mcpURL := protectedEcho(t, as)
			store, err := tokenstore.Open(tokenstore.Options{Dir: t.TempDir(), Backend: tokenstore.BackendFile})
			if err != nil {
				t.Fatal(err)
			}
			clk := &testClock{t: time.Now()}
			h, err := hostauth.New(hostauth.Options{
				ServerID: "hostile", ServerURL: mcpURL, Store: store, Prompter: followRedirect{},
				Now: clk.Now, HTTPClient: &http.Client{Timeout: 500 * time.Millisecond},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Login(ctx); err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: mcpURL, OAuthHandler: h, HTTPClient: &http.Client{Transport: h.WrapTransport(http.DefaultTransport)},
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got, err := echo(ctx, cs, "before"); err != nil || got != "before" {
				t.Fatalf("first call: %q %v", got, err)
			}

			as.setMode(mode)
			clk.Add(2 * time.Hour) // the token expired: the next call refreshes
			_, err = echo(ctx, cs, "during")
			if err == nil {
				t.Fatal("a call with an expired token and a failing token endpoint succeeded")
			}
			if !errors.Is(err, hostauth.ErrTransient) && !strings.Contains(err.Error(), "credentials kept") {
				t.Errorf("call error %v: want the transient failure", err)
			}
			if errors.Is(err, hostauth.ErrLoginRequired) {
				t.Errorf("a %s answer asks for a login: %v", mode, err)
			}
			for _, secret := range []string{"refresh-1", "access-1", "the-code"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error quotes %s: %v", secret, err)
				}
			}
			rec, err := store.Load(ctx, hostauth.Key{ServerID: "hostile", URL: mcpURL})
			if err != nil || rec == nil || rec.Token == nil || rec.Token.RefreshToken != "refresh-1" || rec.Client == nil {
				t.Fatalf("the file store lost the credentials after %s: %+v %v", mode, rec, err)
			}
			st, _ := h.Status(ctx)
			if st.Transient == "" || st.RetryAt.IsZero() {
				t.Errorf("status %+v does not say why", st)
			}
			t.Logf("%s: status says %q", mode, st.Transient)

			as.setMode("")
			clk.Add(31 * time.Second) // past any backoff
			if got, err := echo(ctx, cs, "after"); err != nil || got != "after" {
				t.Fatalf("call after recovery: %q %v", got, err)
			}
			rec, _ = store.Load(ctx, hostauth.Key{ServerID: "hostile", URL: mcpURL})
			if rec.Token.AccessToken != "access-2" || rec.Token.RefreshToken != "refresh-2" {
				t.Errorf("stored after recovery: %+v", rec.Token)
			}
		})
	}
}

// headerTransport adds configured headers, as the session does for a
// server's "headers" config, on top of the OAuth transport hook.
type headerTransport struct {
	base http.RoundTripper
	h    http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return t.base.RoundTrip(r)
}

// A legacy SSE server configured with a static "Authorization: Bearer"
// header, reached through the OAuth transport hook before any OAuth record
// exists (issue 12 item 1: a nil pointer panic that killed host serve).
func TestAuthHostileStaticBearerOverSSE(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "sse", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer static-configured" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		sse.ServeHTTP(w, r)
	}))
	defer srv.Close()
	h, err := hostauth.New(hostauth.Options{ServerID: "static-sse", ServerURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &headerTransport{base: h.WrapTransport(http.DefaultTransport), h: http.Header{"Authorization": {"Bearer static-configured"}}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.SSEClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, err := echo(ctx, cs, "static"); err != nil || got != "static" {
		t.Fatalf("call over SSE with a static bearer: %q %v", got, err)
	}
}

// localService stands for something on the user's own machine (an admin
// API, a cloud metadata endpoint) that a hostile server would like the host
// to fetch. It counts what reaches it.
func localService(t *testing.T) (*httptest.Server, func() int) {
	t.Helper()
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		writeJSON(w, 200, map[string]any{"resource": "whatever", "authorization_servers": []string{"http://" + r.Host}})
	}))
	t.Cleanup(srv.Close)
	return srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return hits
	}
}

// hostileMCP is a protected MCP server whose 401 names prmURL, and whose own
// metadata names asURL as its authorization server.
func hostileMCP(t *testing.T, prmURL func(self string) string, asURL string) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	verify := func(context.Context, string, *http.Request) (*sdkauth.TokenInfo, error) {
		return nil, sdkauth.ErrInvalidToken
	}
	mux.Handle("/mcp", sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL(srv.URL)})(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/mcp", AuthorizationServers: []string{asURL},
	}))
	return srv.URL + "/mcp"
}

// A server on a public network cannot point discovery at the user's own
// machine: not through the challenge's resource_metadata, not through the
// authorization_servers of its metadata (issue 11 item 5). Every test server
// is on loopback, so the server pretends to be public through
// Options.PrivateServer; the last step shows that the real default refuses
// too, for a server whose URL is a public address.
func TestAuthHostileDiscoveryStaysOffTheUsersMachine(t *testing.T) {
	ctx := context.Background()
	local, hits := localService(t)
	public := func(context.Context) bool { return false }
	connect := func(mcpURL string) error {
		h, err := hostauth.New(hostauth.Options{ServerID: "hostile", ServerURL: mcpURL, Prompter: followRedirect{}, PrivateServer: public})
		if err != nil {
			return err
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: mcpURL, OAuthHandler: h, HTTPClient: &http.Client{Transport: h.WrapTransport(http.DefaultTransport)},
		}, nil)
		if err == nil {
			cs.Close()
		}
		return err
	}

	t.Run("resource_metadata on loopback", func(t *testing.T) {
		mcpURL := hostileMCP(t, func(string) string { return local.URL + "/.well-known/oauth-protected-resource" }, local.URL)
		err := connect(mcpURL)
		if !errors.Is(err, hostauth.ErrPrivateAddress) {
			t.Errorf("connect: %v, want ErrPrivateAddress", err)
		}
	})
	t.Run("authorization server on loopback", func(t *testing.T) {
		mcpURL := hostileMCP(t, func(self string) string { return self + "/.well-known/oauth-protected-resource/mcp" }, local.URL)
		err := connect(mcpURL)
		if !errors.Is(err, hostauth.ErrPrivateAddress) {
			t.Errorf("connect: %v, want ErrPrivateAddress", err)
		}
	})
	t.Run("name resolving to loopback", func(t *testing.T) {
		u, _ := url.Parse(local.URL)
		mcpURL := hostileMCP(t, func(string) string { return "http://localhost:" + u.Port() + "/prm" }, local.URL)
		err := connect(mcpURL)
		if !errors.Is(err, hostauth.ErrPrivateAddress) {
			t.Errorf("connect: %v, want ErrPrivateAddress", err)
		}
	})
	t.Run("real default for a public server URL", func(t *testing.T) {
		h, err := hostauth.New(hostauth.Options{ServerID: "public", ServerURL: "https://203.0.113.7/mcp", Prompter: followRedirect{}})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, "https://203.0.113.7/mcp", nil)
		resp := &http.Response{StatusCode: 401, Body: http.NoBody, Header: http.Header{
			"Www-Authenticate": {`Bearer resource_metadata="` + local.URL + `/prm"`},
		}}
		if err := h.Authorize(ctx, req, resp); !errors.Is(err, hostauth.ErrPrivateAddress) {
			t.Errorf("Authorize: %v, want ErrPrivateAddress", err)
		}
	})
	if n := hits(); n != 0 {
		t.Errorf("the service on the user's machine got %d requests", n)
	}
}
