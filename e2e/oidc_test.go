package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// oidcAccessTTL is the access token lifetime at the provider: short, so
// that the tests cross several expiries.
const oidcAccessTTL = 5 * time.Second

// oidcResource is a go-sdk MCP server that accepts only access tokens the
// oidc-provider issued for it: ES256 JWTs checked against the provider's
// JWKS, with its URL as audience and the mcp:tools scope.
type oidcResource struct {
	srv      *httptest.Server
	issuer   atomic.Pointer[string]
	keys     jwk.Set
	keysOnce sync.Once
	keysErr  error
	calls    atomic.Int64
	rejected atomic.Int64
	// prmDelay, if set, delays every protected resource metadata answer,
	// so that a connection's discovery is still running when a test acts.
	prmDelay atomic.Int64
}

func (r *oidcResource) URL() string { return r.srv.URL + "/mcp" }

func startOIDCResource(t *testing.T) *oidcResource {
	t.Helper()
	r := &oidcResource{}
	server := mcp.NewServer(&mcp.Implementation{Name: "oidc-protected", Version: "1.0.0"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		r.calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	mux := http.NewServeMux()
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		tok, err := r.verify(ctx, token)
		if err != nil {
			r.rejected.Add(1)
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		return &auth.TokenInfo{Scopes: strings.Fields(fmt.Sprint(claim(tok, "scope"))), Expiration: tok.Expiration()}, nil
	}
	prmURL := r.srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: []string{"mcp:tools"}})(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, req *http.Request) {
		time.Sleep(time.Duration(r.prmDelay.Load()))
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:             r.URL(),
			AuthorizationServers: []string{*r.issuer.Load()},
			ScopesSupported:      []string{"mcp:tools"},
		}).ServeHTTP(w, req)
	})
	return r
}

func claim(tok jwt.Token, name string) any {
	v, _ := tok.Get(name)
	return v
}

func (r *oidcResource) verify(ctx context.Context, token string) (jwt.Token, error) {
	issuer := *r.issuer.Load()
	r.keysOnce.Do(func() { r.keys, r.keysErr = jwk.Fetch(ctx, issuer+"/jwks") })
	if r.keysErr != nil {
		return nil, r.keysErr
	}
	tok, err := jwt.Parse([]byte(token), jwt.WithKeySet(r.keys), jwt.WithIssuer(issuer), jwt.WithAudience(r.URL()), jwt.WithValidate(true))
	if err != nil {
		return nil, err
	}
	if !strings.Contains(" "+fmt.Sprint(claim(tok, "scope"))+" ", " mcp:tools ") {
		return nil, fmt.Errorf("scope %q lacks mcp:tools", claim(tok, "scope"))
	}
	return tok, nil
}

// startOIDC starts the resource and the provider in front of it; env goes
// to the provider script.
func startOIDC(t *testing.T, env ...string) (*oidcResource, *testenv.OIDCProvider) {
	t.Helper()
	rs := startOIDCResource(t)
	p := testenv.StartOIDCProviderEnv(t, rs.URL(), oidcAccessTTL, env...)
	rs.issuer.Store(&p.Issuer)
	return rs, p
}

var (
	formRe  = regexp.MustCompile(`(?s)<form[^>]*action="([^"]+)"[^>]*method="post"[^>]*>(.*?)</form>`)
	inputRe = regexp.MustCompile(`<input[^>]*name="([^"]+)"[^>]*?(?:value="([^"]*)")?\s*/?>`)
)

// signInWithForms is a user at a plain browser on the provider's login and
// consent pages: it follows the authorization URL, fills in any login and
// password, continues through consent, and follows the redirect to the
// runtime's loopback callback. It returns the callback page.
func signInWithForms(authURL string) (string, error) {
	return signIn(authURL, false)
}

// signInUntilRedirect is signInWithForms on another machine than the
// runtime's: it stops at the redirect to the callback and returns its URL,
// for the user to paste back.
func signInUntilRedirect(authURL string) (string, error) {
	return signIn(authURL, true)
}

func signIn(authURL string, stopAtCallback bool) (string, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	if stopAtCallback {
		c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			if req.URL.Path == "/callback" {
				return http.ErrUseLastResponse
			}
			return nil
		}
	}
	resp, err := c.Get(authURL)
	for step := 0; err == nil && step < 4; step++ {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if loc, lerr := resp.Location(); stopAtCallback && lerr == nil && loc.Path == "/callback" {
			return loc.String(), nil
		}
		if resp.Request.URL.Path == "/callback" {
			if resp.StatusCode != http.StatusOK {
				return "", fmt.Errorf("callback answered %d: %s", resp.StatusCode, body)
			}
			return string(body), nil
		}
		m := formRe.FindSubmatch(body)
		if m == nil {
			return "", fmt.Errorf("no form at %s (status %d): %.300s", resp.Request.URL, resp.StatusCode, body)
		}
		form := url.Values{}
		for _, in := range inputRe.FindAllSubmatch(m[2], -1) {
			form.Set(string(in[1]), string(in[2]))
		}
		if form.Has("login") {
			form.Set("login", "e2e-user")
			form.Set("password", "e2e-password")
		}
		action, _ := resp.Request.URL.Parse(string(m[1]))
		resp, err = c.PostForm(action.String(), form)
	}
	if err != nil {
		return "", err
	}
	return "", fmt.Errorf("the provider's pages never led to the callback")
}

// hostSecrets returns the tokens and the DPoP key (if any) in a file store,
// for checking that no output shows them.
func hostSecrets(t *testing.T, path string) []string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return tokensIn(t, path)
}

// step runs a subtest and stops the test when it fails: each step needs
// the state the ones before it left.
func step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, f) {
		t.FailNow()
	}
}

// TestOIDCProviderLifecycle runs `host serve` against npm oidc-provider:
// the login happens on the provider's own pages, tokens survive a restart,
// two runtimes sharing the file store keep working across several token
// expiries (refresh tokens rotate and a reused one would revoke the grant),
// a revoked grant brings auth_required with the reason while a local server
// stays ready, and a resource that names another resource in its metadata
// makes no request to any authorization server.
func TestOIDCProviderLifecycle(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	rs, provider := startOIDC(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	bin := buildHost(t)
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"oidc":  map[string]any{"transport": "http", "url": rs.URL()},
		"local": map[string]any{"transport": "stdio", "command": bin, "args": []string{"demo-stdio-server"}},
	}}})
	store := filepath.Join(dir, "global", "mcp-auth.json")
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}
	// --debug: every runtime logs its protocol and HTTP traffic, which must
	// show no token.
	args := []string{"--debug", "--allow", "oidc/*", "--allow", "local/*", "--permissions", filepath.Join(dir, "permissions.json")}
	var hosts []*servedHost
	var secrets []string
	serve := func() *servedHost {
		h := startServe(t, env, args...)
		hosts = append(hosts, h)
		ctx := ctxT(t, time.Minute)
		if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{
			ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"},
			Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true},
		}); err != nil {
			t.Fatal(err)
		}
		return h
	}
	state := func(h *servedHost, id string) protocol.ServerStatus { return serverState(t, h, id) }
	echo := func(h *servedHost, text string) error { return oidcEcho(t, h, text) }

	h1 := serve()
	step(t, "first connect waits for a login", func(t *testing.T) {
		waitFor(t, 30*time.Second, "oidc auth_required, local ready", func() bool {
			return state(h1, "oidc").State == protocol.StateAuthRequired && state(h1, "local").State == protocol.StateReady
		})
		if st := provider.Stats(t); st.Registrations != 0 || st.Grants["authorization_code"] != 0 {
			t.Errorf("before any login: %+v", st)
		}
	})

	step(t, "login on the provider's pages", func(t *testing.T) {
		h1.ui.setAnswer(answerWith(protocol.AnswerYes))
		var page string
		h1.ui.mu.Lock()
		h1.ui.openURL = func(u string) bool {
			p, err := signInWithForms(u)
			if err != nil {
				t.Errorf("signing in: %v", err)
				return false
			}
			page = p
			return true
		}
		h1.ui.mu.Unlock()
		res, err := h1.rt.MCPLogin(ctxT(t, time.Minute), &protocol.LoginParams{ID: "oidc"})
		if err != nil {
			t.Fatalf("mcp.login: %v", err)
		}
		if !strings.Contains(page, "You are logged in to oidc") {
			t.Errorf("callback page: %q", page)
		}
		if res.Server.Auth == nil || !res.Server.Auth.LoggedIn {
			t.Errorf("after login: %+v", res.Server)
		}
		var last protocol.ServerStatus
		defer func() {
			if t.Failed() {
				t.Logf("oidc status: %+v auth %+v; resource rejected %d tokens", last, last.Auth, rs.rejected.Load())
			}
		}()
		waitFor(t, 20*time.Second, "oidc ready with its tool", func() bool {
			last = state(h1, "oidc")
			return last.State == protocol.StateReady && last.Tools == 1
		})
		if err := echo(h1, "first"); err != nil {
			t.Fatal(err)
		}
		st := provider.Stats(t)
		if st.Registrations != 1 || st.Grants["authorization_code"] != 1 {
			t.Errorf("after login: %+v", st)
		}
		secrets = append(secrets, hostSecrets(t, store)...)
	})

	var h2 *servedHost
	step(t, "restart: no new login, no new registration", func(t *testing.T) {
		if _, err := h1.rt.Shutdown(ctxT(t, 20*time.Second), &protocol.Empty{}); err != nil {
			t.Fatal(err)
		}
		h2 = serve()
		waitFor(t, 30*time.Second, "oidc ready from the stored tokens", func() bool { return state(h2, "oidc").State == protocol.StateReady })
		if err := echo(h2, "after restart"); err != nil {
			t.Fatal(err)
		}
		h2.ui.mu.Lock()
		asked := len(h2.ui.confirms)
		h2.ui.mu.Unlock()
		st := provider.Stats(t)
		if asked != 0 || st.Registrations != 1 || st.Grants["authorization_code"] != 1 {
			t.Errorf("restart asked %d times; provider %+v", asked, st)
		}
	})

	step(t, "two runtimes refresh through several expiries", func(t *testing.T) {
		h3 := serve()
		waitFor(t, 30*time.Second, "second runtime ready", func() bool { return state(h3, "oidc").State == protocol.StateReady })
		before := provider.Stats(t).Grants["refresh_token"]
		first := state(h2, "oidc").Auth
		if first == nil || first.ValidUntil.IsZero() || !strings.Contains(first.Detail, "token valid until") {
			t.Fatalf("mcp.get before the refreshes: auth %+v", first)
		}
		deadline := time.Now().Add(3*oidcAccessTTL + 2*time.Second)
		calls := 0
		for i := 0; time.Now().Before(deadline); i++ {
			for j, h := range []*servedHost{h2, h3} {
				if err := echo(h, fmt.Sprintf("%d-%d", i, j)); err != nil {
					t.Fatalf("runtime %d, call %d (after %d good calls): %v\nprovider: %+v", j+2, i, calls, err, provider.Stats(t))
				}
				calls++
			}
			time.Sleep(700 * time.Millisecond)
		}
		refreshes := provider.Stats(t).Grants["refresh_token"] - before
		if refreshes < 2 {
			t.Errorf("%d refreshes across 3 token lifetimes, want at least 2", refreshes)
		}
		if rs.rejected.Load() != 0 && state(h2, "oidc").State != protocol.StateReady {
			t.Errorf("a runtime lost its login")
		}
		t.Logf("%d calls from two runtimes over %v; %d refreshes; %d expired tokens answered 401 and were refreshed", calls, 3*oidcAccessTTL, refreshes, rs.rejected.Load())
		// The validity shown follows the background refreshes (issue 12
		// item 9): it moved by at least two token lifetimes.
		var last *protocol.AuthStatus
		waitFor(t, 5*time.Second, "mcp.get showing the refreshed token's validity", func() bool {
			last = state(h2, "oidc").Auth
			return last != nil && !last.ValidUntil.Before(first.ValidUntil.Add(2*oidcAccessTTL)) && last.Detail != first.Detail
		})
		t.Logf("mcp.get: %q, then %q", first.Detail, last.Detail)
		secrets = append(secrets, hostSecrets(t, store)...)
		if _, err := h3.rt.Shutdown(ctxT(t, 20*time.Second), &protocol.Empty{}); err != nil {
			t.Fatal(err)
		}
	})

	step(t, "revoked grant: auth_required with the reason, local unaffected", func(t *testing.T) {
		if n := provider.RevokeAll(t); n == 0 {
			t.Fatal("the provider had no grant to revoke")
		}
		var s protocol.ServerStatus
		var callErr error
		defer func() {
			if t.Failed() {
				t.Logf("oidc: %+v auth %+v; last call: %v", s, s.Auth, callErr)
			}
		}()
		waitFor(t, 3*oidcAccessTTL, "oidc auth_required after the access token ran out", func() bool {
			callErr = echo(h2, "after revocation") // fails once the token expires
			s = state(h2, "oidc")
			return s.State == protocol.StateAuthRequired
		})
		if s.Auth == nil || s.Auth.LoggedIn || !strings.Contains(s.Auth.Detail, "refresh failed") || !strings.Contains(s.Auth.Detail, "invalid_grant") {
			t.Errorf("auth after revocation: %+v", s.Auth)
		}
		res, err := h2.rt.ToolCall(ctxT(t, 20*time.Second), &protocol.ToolCallParams{Server: "local", Tool: "word_count", Arguments: json.RawMessage(`{"text":"still here"}`)})
		if err != nil || res.Result.IsError || state(h2, "local").State != protocol.StateReady {
			t.Errorf("local server after the revocation: %+v %v", res, err)
		}
	})

	step(t, "metadata naming another resource reaches no authorization server", func(t *testing.T) {
		other := testenv.StartOIDCProvider(t, "https://elsewhere.example/mcp", oidcAccessTTL)
		wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"resource":"https://elsewhere.example/mcp","authorization_servers":[%q]}`, other.Issuer)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
		}))
		defer wrong.Close()
		writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
			"oidc":  map[string]any{"transport": "http", "url": rs.URL()},
			"local": map[string]any{"transport": "stdio", "command": bin, "args": []string{"demo-stdio-server"}},
			"wrong": map[string]any{"transport": "http", "url": wrong.URL + "/mcp"},
		}}})
		waitFor(t, 30*time.Second, "wrong reports the mismatch", func() bool {
			l, err := h2.rt.MCPList(ctxT(t, 5*time.Second), &protocol.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range l.Servers {
				if s.ID == "wrong" && s.State == protocol.StateError && strings.Contains(s.LastError, "elsewhere.example") {
					t.Logf("wrong: %s", s.LastError)
					return true
				}
			}
			return false
		})
		if st := other.Stats(t); st.Requests != 0 {
			t.Errorf("the authorization server got %d requests: %v", st.Requests, st.Paths)
		}
	})

	step(t, "no token in any output", func(t *testing.T) {
		if _, err := h2.rt.Shutdown(ctxT(t, 20*time.Second), &protocol.Empty{}); err != nil {
			t.Fatal(err)
		}
		for i, h := range hosts {
			select {
			case err := <-h.exited:
				h.exited <- err // for the cleanup
			case <-time.After(20 * time.Second):
				t.Fatalf("runtime %d did not exit after shutdown", i+1)
			}
		}
		if len(secrets) < 2 {
			t.Fatalf("found only %d tokens to look for", len(secrets))
		}
		if logs := hosts[1].stderr.String(); !strings.Contains(logs, `Authorization:[Bearer ***]`) || !strings.Contains(logs, "msg=send") {
			t.Errorf("the --debug log shows no masked traffic; the check below would prove nothing:\n%.2000s", logs)
		}
		for i, h := range hosts {
			h.out.mu.Lock()
			proto := h.out.w.(interface{ String() string }).String()
			h.out.mu.Unlock()
			logs := h.stderr.String()
			for _, s := range secrets {
				if s != "" && (strings.Contains(proto, s) || strings.Contains(logs, s)) {
					t.Errorf("runtime %d: a token appears in its protocol output or logs", i+1)
				}
			}
		}
	})
}

// serverState is server id's status in h (mcp.get), failing t on error.
func serverState(t *testing.T, h *servedHost, id string) protocol.ServerStatus {
	t.Helper()
	g, err := h.rt.MCPGet(ctxT(t, 10*time.Second), &protocol.ServerParams{ID: id})
	if err != nil {
		t.Fatalf("mcp.get %s: %v", id, err)
	}
	return g.Server.ServerStatus
}

// oidcEcho calls the OIDC-protected server's echo with text in h and
// checks its answer.
func oidcEcho(t *testing.T, h *servedHost, text string) error {
	res, err := h.rt.ToolCall(ctxT(t, 30*time.Second), &protocol.ToolCallParams{Server: "oidc", Tool: "echo", Arguments: json.RawMessage(fmt.Sprintf(`{"text":%q}`, text))})
	if err != nil {
		return err
	}
	if res.Result.IsError || len(res.Result.Content) == 0 || res.Result.Content[0].Text != "echo: "+text {
		return fmt.Errorf("echo %q answered %+v", text, res.Result)
	}
	return nil
}
