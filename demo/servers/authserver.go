// Package servers holds the servers `host demo` runs on loopback: a small
// OAuth 2.1 authorization server (metadata, dynamic client registration,
// PKCE, a consent page, refresh-token rotation, RFC 8707 resources), an MCP
// server that accepts only its tokens, and a local stdio MCP server. They
// need no network and keep everything in memory.
//
// They stand for the outside world, so they must not import any mcp-host
// package: what they do is what a real server would do, not what the host
// expects.
package servers

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Scope is the scope the demo resource requires.
const Scope = "notes"

// AuthServer is the demo authorization server.
type AuthServer struct {
	// Issuer is its URL (http://127.0.0.1:<port>).
	Issuer string
	// Resource is the only resource it issues tokens for.
	Resource string

	autoApprove bool
	lifetime    time.Duration
	log         *slog.Logger

	mu            sync.Mutex
	clients       map[string]*client
	pending       map[string]*authzRequest // consent pages shown, by form token
	codes         map[string]*grant
	access        map[string]*grant
	refresh       map[string]*grant
	registrations int
	issued        int
	requests      int
}

type client struct {
	ID, Secret   string
	Name         string
	RedirectURIs []string
	AuthMethod   string
}

type authzRequest struct {
	client                     *client
	redirectURI, state, scope  string
	challenge, resource, token string
	expires                    time.Time
}

type grant struct {
	clientID, scope, resource string
	redirectURI, challenge    string
	expires                   time.Time
}

func newAuthServer(issuer, resource string, autoApprove bool, lifetime time.Duration, log *slog.Logger) *AuthServer {
	return &AuthServer{
		Issuer: issuer, Resource: resource, autoApprove: autoApprove, lifetime: lifetime, log: log,
		clients: map[string]*client{}, pending: map[string]*authzRequest{},
		codes: map[string]*grant{}, access: map[string]*grant{}, refresh: map[string]*grant{},
	}
}

// Registrations counts dynamic client registrations.
func (a *AuthServer) Registrations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.registrations
}

// TokensIssued counts access tokens issued (by code or refresh).
func (a *AuthServer) TokensIssued() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.issued
}

// Requests counts every request the server received.
func (a *AuthServer) Requests() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests
}

// Handler serves the authorization server's endpoints.
func (a *AuthServer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /consent", a.consent)
	mux.HandleFunc("POST /token", a.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.requests++
		a.mu.Unlock()
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (a *AuthServer) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         a.Issuer,
		"authorization_endpoint":                         a.Issuer + "/authorize",
		"token_endpoint":                                 a.Issuer + "/token",
		"registration_endpoint":                          a.Issuer + "/register",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_post", "client_secret_basic"},
		"scopes_supported":                               []string{Scope},
		"authorization_response_iss_parameter_supported": true,
	})
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// loopbackRedirect reports whether u is an http redirect URI on a loopback
// address, the only kind a native client may register here.
func loopbackRedirect(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" || p.Fragment != "" {
		return false
	}
	ip := net.ParseIP(p.Hostname())
	return p.Hostname() == "localhost" || ip != nil && ip.IsLoopback()
}

func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		ClientName   string   `json:"client_name"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "body is not a JSON client metadata document")
		return
	}
	if len(req.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	for _, u := range req.RedirectURIs {
		if !loopbackRedirect(u) {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "only http loopback redirect URIs are accepted: "+u)
			return
		}
	}
	c := &client{ID: "demo-" + randomToken()[:12], Name: req.ClientName, RedirectURIs: req.RedirectURIs, AuthMethod: req.AuthMethod}
	switch c.AuthMethod {
	case "", "none":
		c.AuthMethod = "none"
	case "client_secret_post", "client_secret_basic":
		c.Secret = randomToken()
	default:
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "unsupported token_endpoint_auth_method "+c.AuthMethod)
		return
	}
	a.mu.Lock()
	a.clients[c.ID] = c
	a.registrations++
	a.mu.Unlock()
	a.log.Info("demo auth: registered a client", "client_name", c.Name)
	resp := map[string]any{
		"client_id": c.ID, "client_name": c.Name, "redirect_uris": c.RedirectURIs,
		"token_endpoint_auth_method": c.AuthMethod, "grant_types": []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"}, "client_id_issued_at": time.Now().Unix(),
	}
	if c.Secret != "" {
		resp["client_secret"], resp["client_secret_expires_at"] = c.Secret, 0
	}
	writeJSON(w, http.StatusCreated, resp)
}

// redirectMatches compares a requested redirect URI with a registered one;
// for loopback URIs any port is accepted (RFC 8252 section 7.3).
func redirectMatches(registered []string, got string) bool {
	g, err := url.Parse(got)
	if err != nil {
		return false
	}
	for _, r := range registered {
		if r == got {
			return true
		}
		ru, err := url.Parse(r)
		if err == nil && loopbackRedirect(r) && ru.Hostname() == g.Hostname() && ru.Path == g.Path && ru.Scheme == g.Scheme {
			return true
		}
	}
	return false
}

func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	c := a.clients[q.Get("client_id")]
	a.mu.Unlock()
	if c == nil {
		http.Error(w, "unknown client_id: register first", http.StatusBadRequest)
		return
	}
	redirectURI := q.Get("redirect_uri")
	if !redirectMatches(c.RedirectURIs, redirectURI) {
		// Never redirect to an unregistered URI.
		http.Error(w, "redirect_uri is not registered for this client", http.StatusBadRequest)
		return
	}
	fail := func(code, desc string) {
		v := url.Values{"error": {code}, "error_description": {desc}, "iss": {a.Issuer}}
		if s := q.Get("state"); s != "" {
			v.Set("state", s)
		}
		http.Redirect(w, r, redirectURI+"?"+v.Encode(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "PKCE with code_challenge_method S256 is required")
		return
	case q.Get("resource") != a.Resource:
		fail("invalid_target", "resource must be "+a.Resource)
		return
	}
	scope := q.Get("scope")
	if scope == "" {
		scope = Scope
	}
	for _, s := range strings.Fields(scope) {
		if s != Scope && s != "offline_access" {
			fail("invalid_scope", "unknown scope "+s)
			return
		}
	}
	req := &authzRequest{
		client: c, redirectURI: redirectURI, state: q.Get("state"), scope: scope,
		challenge: q.Get("code_challenge"), resource: q.Get("resource"),
		token: randomToken(), expires: time.Now().Add(10 * time.Minute),
	}
	if a.autoApprove {
		a.approve(w, r, req)
		return
	}
	a.mu.Lock()
	a.pending[req.token] = req
	a.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	name := c.Name
	if name == "" {
		name = "An application"
	}
	_ = consentPage.Execute(w, map[string]string{"Client": name, "Scope": scope, "Resource": a.Resource, "Token": req.token})
}

var consentPage = template.Must(template.New("consent").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Allow access? — mcp-host demo</title>
<style>body{font-family:system-ui,sans-serif;max-width:30em;margin:4em auto;padding:0 1em;color:#222}
button{font-size:1em;padding:.5em 1.2em;margin-right:.5em}code{background:#f3f3f3;padding:0 .2em}</style></head>
<body><h1>Allow access?</h1>
<p><strong>{{.Client}}</strong> wants to access the demo MCP server <code>{{.Resource}}</code> with the scope <code>{{.Scope}}</code>.</p>
<p>This is the mcp-host demo authorization server: there is no account and no password.</p>
<form method="post" action="/consent">
<input type="hidden" name="request" value="{{.Token}}">
<button id="approve" name="decision" value="approve" type="submit">Approve</button>
<button id="deny" name="decision" value="deny" type="submit">Deny</button>
</form></body></html>`))

func (a *AuthServer) consent(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	req := a.pending[r.PostForm.Get("request")]
	delete(a.pending, r.PostForm.Get("request"))
	a.mu.Unlock()
	if req == nil || time.Now().After(req.expires) {
		http.Error(w, "this consent page has expired; start the login again", http.StatusBadRequest)
		return
	}
	if r.PostForm.Get("decision") != "approve" {
		v := url.Values{"error": {"access_denied"}, "error_description": {"the user denied access"}, "iss": {a.Issuer}}
		if req.state != "" {
			v.Set("state", req.state)
		}
		http.Redirect(w, r, req.redirectURI+"?"+v.Encode(), http.StatusFound)
		return
	}
	a.approve(w, r, req)
}

func (a *AuthServer) approve(w http.ResponseWriter, r *http.Request, req *authzRequest) {
	code := randomToken()
	a.mu.Lock()
	a.codes[code] = &grant{
		clientID: req.client.ID, scope: req.scope, resource: req.resource,
		redirectURI: req.redirectURI, challenge: req.challenge, expires: time.Now().Add(time.Minute),
	}
	a.mu.Unlock()
	v := url.Values{"code": {code}, "iss": {a.Issuer}}
	if req.state != "" {
		v.Set("state", req.state)
	}
	http.Redirect(w, r, req.redirectURI+"?"+v.Encode(), http.StatusFound)
}

// authenticate checks the client of a token request.
func (a *AuthServer) authenticate(r *http.Request) (*client, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	a.mu.Lock()
	c := a.clients[id]
	a.mu.Unlock()
	if c == nil {
		return nil, false
	}
	if c.AuthMethod == "none" {
		return c, true
	}
	return c, subtle.ConstantTimeCompare([]byte(secret), []byte(c.Secret)) == 1
}

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "bad form")
		return
	}
	c, ok := a.authenticate(r)
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	f := r.PostForm
	var g *grant
	switch f.Get("grant_type") {
	case "authorization_code":
		a.mu.Lock()
		g = a.codes[f.Get("code")]
		delete(a.codes, f.Get("code")) // one use only
		a.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case g == nil || time.Now().After(g.expires) || g.clientID != c.ID:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code")
			return
		case g.redirectURI != f.Get("redirect_uri"):
			oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri does not match the authorization request")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "PKCE verification failed")
			return
		}
	case "refresh_token":
		a.mu.Lock()
		g = a.refresh[f.Get("refresh_token")]
		delete(a.refresh, f.Get("refresh_token")) // rotation: each refresh token works once
		a.mu.Unlock()
		if g == nil || g.clientID != c.ID {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or already used refresh token")
			return
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
		return
	}
	if res := f.Get("resource"); res != "" && res != g.resource {
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource does not match the grant")
		return
	}
	access, refresh := randomToken(), randomToken()
	exp := time.Now().Add(a.lifetime)
	a.mu.Lock()
	a.access[access] = &grant{clientID: c.ID, scope: g.scope, resource: g.resource, expires: exp}
	a.refresh[refresh] = &grant{clientID: c.ID, scope: g.scope, resource: g.resource}
	a.issued++
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer", "expires_in": int(a.lifetime / time.Second),
		"refresh_token": refresh, "scope": g.scope,
	})
}

// Verify checks an access token for resource: known, unexpired, issued for
// it. It returns the token's scopes and expiry.
func (a *AuthServer) Verify(token, resource string) ([]string, time.Time, error) {
	a.mu.Lock()
	g := a.access[token]
	a.mu.Unlock()
	switch {
	case g == nil:
		return nil, time.Time{}, fmt.Errorf("unknown token")
	case time.Now().After(g.expires):
		return nil, time.Time{}, fmt.Errorf("expired token")
	case g.resource != resource:
		return nil, time.Time{}, fmt.Errorf("token is for another resource")
	}
	return strings.Fields(g.scope), g.expires, nil
}

// Revoke drops every token of every client, as a user revoking access would.
func (a *AuthServer) Revoke() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
	clear(a.refresh)
}

// ExpireAccessTokens ends every access token now and keeps the refresh
// tokens: the server's clock has passed their expiry, whatever the host
// was told, as a host whose clock was set back (or that slept) meets it.
func (a *AuthServer) ExpireAccessTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	past := time.Now().Add(-time.Second)
	for _, g := range a.access {
		g.expires = past
	}
}

// fingerprint is a short, non-reversible name for a token, for logs.
func fingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:4])
}
