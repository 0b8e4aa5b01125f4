package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testAS is an authorization server on loopback that records what clients
// send it. Its behaviour is changed through the exported-looking fields
// before use, or under mu while running.
type testAS struct {
	t   *testing.T
	srv *httptest.Server

	mu sync.Mutex
	// configuration
	meta           map[string]any // extra metadata fields; nil values delete
	issuerOverride string
	issInRedirect  string // "correct" (default), "omit", "wrong", "slash"
	tokenStatus    int    // if set, the token endpoint answers this status
	tokenError     string // and this error code
	tokenBody      string // or this raw body
	refreshError   string // error code for refresh_token grants only
	expiresIn      int
	noRefreshToken bool
	clientSecret   string          // returned by registration; "" = public client
	noMeta         bool            // serve no metadata document
	name           string          // prefix of issued client ids
	dpopNonce      string          // if set, token requests need a DPoP proof with it
	registerStatus int             // if set, registration answers this status
	deadClients    map[string]bool // client ids the token endpoint calls invalid_client
	revokeStatus   int             // if set, revocation answers this status
	// RFC 7592: issueRAT makes registration return a client configuration
	// endpoint (/reg/<id>) and token; readStatus, if set, is its answer;
	// rotateRAT makes a read return a new token; ratOrigin, if set, is
	// the origin of the endpoint registration names.
	issueRAT   bool
	ratOrigin  string
	readStatus int
	rotateRAT  bool
	// refuseDead makes /authorize refuse the deadClients: "page" (a 400
	// error page) or "redirect" (to the redirect URI with invalid_client).
	refuseDead string
	// tokenHook, if set, answers token requests it returns true for. It
	// runs without mu held, so it may block.
	tokenHook func(w http.ResponseWriter, r *http.Request) bool

	// observations
	requests      []string // method + path of every request
	registrations int
	authorizes    []url.Values
	tokenForms    []url.Values
	tokenAuth     []string // Authorization header of token requests
	dpopProofs    []string // DPoP header of token requests
	issued        int
	revocations   []url.Values
	revokeAuth    []string
	reads         []string // Authorization header of registration reads
	rats          map[string]string
}

func newTestAS(t *testing.T) *testAS {
	t.Helper()
	as := &testAS{t: t, issInRedirect: "correct", expiresIn: 3600}
	as.srv = httptest.NewServer(http.HandlerFunc(as.serve))
	t.Cleanup(as.srv.Close)
	return as
}

func (as *testAS) URL() string { return as.srv.URL }

func (as *testAS) issuer() string {
	if as.issuerOverride != "" {
		return as.issuerOverride
	}
	return as.srv.URL
}

func (as *testAS) count(path string) int {
	as.mu.Lock()
	defer as.mu.Unlock()
	n := 0
	for _, r := range as.requests {
		if strings.HasSuffix(r, " "+path) {
			n++
		}
	}
	return n
}

func (as *testAS) total() int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return len(as.requests)
}

func (as *testAS) lastTokenForm() url.Values {
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.tokenForms) == 0 {
		return nil
	}
	return as.tokenForms[len(as.tokenForms)-1]
}

func (as *testAS) serve(w http.ResponseWriter, r *http.Request) {
	as.mu.Lock()
	as.requests = append(as.requests, r.Method+" "+r.URL.Path)
	hook := as.tokenHook
	as.mu.Unlock()
	if hook != nil && r.URL.Path == "/token" && hook(w, r) {
		return
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		if as.noMeta {
			http.NotFound(w, r)
			return
		}
		m := map[string]any{
			"issuer":                                         as.issuer(),
			"authorization_endpoint":                         as.srv.URL + "/authorize",
			"token_endpoint":                                 as.srv.URL + "/token",
			"registration_endpoint":                          as.srv.URL + "/register",
			"response_types_supported":                       []string{"code"},
			"code_challenge_methods_supported":               []string{"S256"},
			"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic"},
			"authorization_response_iss_parameter_supported": true,
		}
		for k, v := range as.meta {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(m)
	case "/authorize":
		q := r.URL.Query()
		as.authorizes = append(as.authorizes, q)
		red, _ := url.Parse(q.Get("redirect_uri"))
		rq := red.Query()
		if as.deadClients[q.Get("client_id")] && as.refuseDead == "page" {
			http.Error(w, "<h1>oops: invalid_client</h1>", http.StatusBadRequest)
			return
		}
		if as.deadClients[q.Get("client_id")] && as.refuseDead == "redirect" {
			rq.Set("error", "invalid_client")
			rq.Set("state", q.Get("state"))
			rq.Set("iss", as.issuer())
			red.RawQuery = rq.Encode()
			http.Redirect(w, r, red.String(), http.StatusFound)
			return
		}
		rq.Set("code", "code-"+q.Get("client_id"))
		rq.Set("state", q.Get("state"))
		switch as.issInRedirect {
		case "correct":
			rq.Set("iss", as.issuer())
		case "wrong":
			rq.Set("iss", "https://evil.example.com")
		case "slash":
			rq.Set("iss", as.issuer()+"/")
		}
		red.RawQuery = rq.Encode()
		http.Redirect(w, r, red.String(), http.StatusFound)
	case "/register":
		if as.registerStatus != 0 {
			w.WriteHeader(as.registerStatus)
			return
		}
		as.registrations++
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		resp := map[string]any{
			"client_id":     fmt.Sprintf("%sclient-%d", as.name, as.registrations),
			"redirect_uris": body["redirect_uris"],
		}
		if as.issueRAT {
			id := resp["client_id"].(string)
			origin := as.srv.URL
			if as.ratOrigin != "" {
				origin = as.ratOrigin
			}
			resp["registration_client_uri"] = origin + "/reg/" + id
			resp["registration_access_token"] = "rat-" + id
			if as.rats == nil {
				as.rats = map[string]string{}
			}
			as.rats[id] = "rat-" + id
		}
		if as.clientSecret != "" {
			resp["client_secret"] = as.clientSecret
			resp["token_endpoint_auth_method"] = "client_secret_basic"
		} else {
			resp["token_endpoint_auth_method"] = "none"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(resp)
	case "/token":
		_ = r.ParseForm()
		as.tokenForms = append(as.tokenForms, r.PostForm)
		as.tokenAuth = append(as.tokenAuth, r.Header.Get("Authorization"))
		proof := r.Header.Get("DPoP")
		as.dpopProofs = append(as.dpopProofs, proof)
		if proof != "" && as.dpopNonce != "" && proofClaim(proof, "nonce") != as.dpopNonce {
			w.Header().Set("DPoP-Nonce", as.dpopNonce)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "use_dpop_nonce"})
			return
		}
		if as.tokenBody != "" || as.tokenStatus != 0 {
			status := as.tokenStatus
			if status == 0 {
				status = http.StatusBadRequest
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			if as.tokenBody != "" {
				_, _ = io.WriteString(w, as.tokenBody)
			} else {
				_ = json.NewEncoder(w).Encode(map[string]string{"error": as.tokenError})
			}
			return
		}
		if id := r.PostForm.Get("client_id"); as.deadClients[id] || as.deadClients[basicUser(r.Header.Get("Authorization"))] {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
			return
		}
		if r.PostForm.Get("grant_type") == "refresh_token" && as.refreshError != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": as.refreshError, "error_description": "grant revoked"})
			return
		}
		as.issued++
		resp := map[string]any{
			"access_token": fmt.Sprintf("access-%d", as.issued),
			"token_type":   "Bearer",
			"expires_in":   as.expiresIn,
		}
		if proof != "" {
			resp["token_type"] = "DPoP"
		}
		if !as.noRefreshToken {
			resp["refresh_token"] = fmt.Sprintf("refresh-%d", as.issued)
		}
		if s := as.requestedScope(r.PostForm); s != "" {
			resp["scope"] = s
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	case "/revoke":
		_ = r.ParseForm()
		as.revocations = append(as.revocations, r.PostForm)
		as.revokeAuth = append(as.revokeAuth, r.Header.Get("Authorization"))
		if as.revokeStatus != 0 {
			w.WriteHeader(as.revokeStatus)
		}
	default:
		if id, ok := strings.CutPrefix(r.URL.Path, "/reg/"); ok && r.Method == http.MethodGet {
			as.readRegistration(w, r, id)
			return
		}
		http.NotFound(w, r)
	}
}

// readRegistration answers an RFC 7592 read of client id. Called holding
// as.mu.
func (as *testAS) readRegistration(w http.ResponseWriter, r *http.Request, id string) {
	auth := r.Header.Get("Authorization")
	as.reads = append(as.reads, auth)
	if as.readStatus != 0 {
		w.WriteHeader(as.readStatus)
		return
	}
	if as.deadClients[id] || as.rats[id] == "" || auth != "Bearer "+as.rats[id] {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if as.rotateRAT {
		as.rats[id] += "-next"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"client_id": id, "registration_access_token": as.rats[id], "registration_client_uri": as.srv.URL + "/reg/" + id})
}

// requestedScope is the scope of the last authorization request, which the
// server grants in full.
func (as *testAS) requestedScope(form url.Values) string {
	if form.Get("grant_type") != "authorization_code" || len(as.authorizes) == 0 {
		return ""
	}
	return as.authorizes[len(as.authorizes)-1].Get("scope")
}

// testRS is the protected resource: it serves only its metadata.
type testRS struct {
	srv     *httptest.Server
	mu      sync.Mutex
	prm     map[string]any
	prmHits int
}

func newTestRS(t *testing.T, as *testAS) *testRS {
	t.Helper()
	rs := &testRS{}
	rs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		if r.URL.Path != "/.well-known/oauth-protected-resource/mcp" || rs.prm == nil {
			http.NotFound(w, r)
			return
		}
		rs.prmHits++
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(rs.prm)
	}))
	t.Cleanup(rs.srv.Close)
	rs.prm = map[string]any{
		"resource":              rs.srv.URL + "/mcp",
		"authorization_servers": []string{as.URL()},
		"scopes_supported":      []string{"mcp:read"},
	}
	return rs
}

func (rs *testRS) URL() string { return rs.srv.URL + "/mcp" }

// testPrompter plays the browser: it follows the authorization URL to the
// redirect without following it. gate, if set, is waited on before each
// login.
type testPrompter struct {
	redirect string
	gate     chan struct{}
	logins   atomic.Int32
	// tamper, if set, edits the callback before it is returned.
	tamper func(*CallbackResult)
}

func (p *testPrompter) RedirectURI(context.Context, string) (string, error) {
	if p.redirect == "" {
		return "http://127.0.0.1:9/callback", nil
	}
	return p.redirect, nil
}

func (p *testPrompter) Login(ctx context.Context, req *LoginRequest) (*CallbackResult, error) {
	p.logins.Add(1)
	if p.gate != nil {
		select {
		case <-p.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
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
	res := ParseCallback(u.Query())
	if p.tamper != nil {
		p.tamper(res)
	}
	return res, nil
}

// unauthorized builds the request/response pair a transport hands to
// Authorize after a 401 (or 403) from rs.
func unauthorized(rs *testRS, status int, token, wwwAuth string) (*http.Request, *http.Response) {
	req, _ := http.NewRequest(http.MethodPost, rs.URL(), nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if wwwAuth == "" {
		wwwAuth = fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, rs.srv.URL)
	}
	resp := &http.Response{
		StatusCode: status,
		Header:     http.Header{"Www-Authenticate": {wwwAuth}},
		Body:       io.NopCloser(strings.NewReader("")),
	}
	return req, resp
}

func newHandler(t *testing.T, rs *testRS, p LoginPrompter, store Store, mod func(*Options)) *Handler {
	t.Helper()
	o := Options{ServerID: "srv", ServerURL: rs.URL(), Prompter: p, Store: store}
	if mod != nil {
		mod(&o)
	}
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// currentToken returns the access token the handler would send, or "".
func currentToken(t *testing.T, h *Handler) string {
	t.Helper()
	ts, err := h.TokenSource(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	if tok == nil {
		return ""
	}
	return tok.AccessToken
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func basicUser(h string) string {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
	if err != nil {
		return ""
	}
	user, _, _ := strings.Cut(string(b), ":")
	u, _ := url.QueryUnescape(user)
	return u
}
