// Package auth is mcp-host's OAuth client for MCP servers: a go-sdk
// [auth.OAuthHandler] that runs the MCP authorization flow (authorization
// code with PKCE) and keeps its tokens fresh.
//
// It covers what go-sdk's own handler leaves out or gets wrong: a protected
// resource metadata resource that names another server stops everything
// before any request reaches an authorization server; one authorization runs
// per server at a time and concurrent 401s wait for it; dynamic client
// registrations are stored with their issuer, reused, and dropped when the
// server rejects them or the redirect URI changes; the RFC 8707 resource goes
// on authorization, token and refresh requests alike; the RFC 9207 iss
// parameter is compared exactly; a refresh token the server rejects turns
// into [ErrLoginRequired] while network and server failures never delete
// credentials.
//
// The handler never opens a browser: a [LoginPrompter] shows the
// authorization URL and returns the redirect. [Loopback] is a prompter
// building block that receives the redirect on 127.0.0.1.
//
// [auth.OAuthHandler]: https://pkg.go.dev/github.com/modelcontextprotocol/go-sdk/auth#OAuthHandler
package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

var _ sdkauth.OAuthHandler = (*Handler)(nil)

// refreshTimeout bounds a refresh started from TokenSource, which has no
// request context of its own.
const refreshTimeout = 30 * time.Second

// Handler authorizes the requests of one MCP server. It implements go-sdk's
// auth.OAuthHandler; set it as the session's OAuthHandler. It is safe for
// concurrent use.
type Handler struct {
	opts       Options
	key        Key
	log        *slog.Logger
	httpClient *http.Client
	noRedirect *http.Client

	// flow holds one token while an authorization or refresh runs.
	flow chan struct{}

	mu      sync.Mutex
	loaded  bool
	rec     *Record // never nil once loaded
	gen     uint64  // finished authorizations
	lastErr error   // result of the last authorization
	reason  string  // why a login is needed, when known
	stepUps map[string]int

	// DPoP state: the parsed key of the current record and the latest
	// nonce of each origin.
	dpopMu       sync.Mutex
	dpopCache    jwk.Key
	dpopCacheRaw string
	nonces       map[string]string
	// dpopChallenged records that the server challenged with the DPoP
	// scheme, for logins started later without a challenge at hand.
	dpopChallenged atomic.Bool
}

// New returns a handler for the server in opts.
func New(opts Options) (*Handler, error) {
	if opts.ServerID == "" {
		return nil, errors.New("auth: ServerID is required")
	}
	u, err := url.Parse(opts.ServerURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("auth: server %s: url %q is not an http(s) URL", opts.ServerID, opts.ServerURL)
	}
	for name, v := range map[string]string{"authorization_url": opts.AuthorizationURL, "token_url": opts.TokenURL, "registration_url": opts.RegistrationURL, "idp_issuer": opts.IDPIssuer, "idp_token_url": opts.IDPTokenURL} {
		if v != "" {
			if err := checkEndpoint(v); err != nil {
				return nil, fmt.Errorf("auth: server %s: oauth.%s: %w", opts.ServerID, name, err)
			}
		}
	}
	if opts.RefreshSkew <= 0 {
		opts.RefreshSkew = DefaultRefreshSkew
	}
	if opts.MaxStepUps <= 0 {
		opts.MaxStepUps = DefaultMaxStepUps
	}
	if opts.ClientName == "" {
		opts.ClientName = DefaultClientName
	}
	if opts.Store == nil {
		opts.Store = NewMemoryStore()
	}
	h := &Handler{
		opts:    opts,
		key:     Key{ServerID: opts.ServerID, URL: opts.ServerURL},
		log:     opts.Logger,
		flow:    make(chan struct{}, 1),
		stepUps: map[string]int{},
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.httpClient = opts.HTTPClient
	if h.httpClient == nil {
		h.httpClient = &http.Client{Timeout: 30 * time.Second}
	}
	nr := *h.httpClient
	nr.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	h.noRedirect = &nr
	return h, nil
}

func (h *Handler) now() time.Time {
	if h.opts.Now != nil {
		return h.opts.Now()
	}
	return time.Now()
}

// TokenSource implements auth.OAuthHandler. The source returns no token
// (and so no Authorization header) while the handler has none; it refreshes
// a token that is about to expire.
func (h *Handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	if err := h.load(ctx); err != nil {
		return nil, err
	}
	return &tokenSource{h: h, ctx: ctx}, nil
}

type tokenSource struct {
	h   *Handler
	ctx context.Context
}

func (ts *tokenSource) Token() (*oauth2.Token, error) { return ts.h.token(ts.ctx) }

func (h *Handler) load(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.loaded {
		return nil
	}
	rec, err := h.opts.Store.Load(ctx, h.key)
	if err != nil {
		return fmt.Errorf("server %s: loading credentials: %w", h.opts.ServerID, err)
	}
	if rec == nil {
		rec = &Record{}
	}
	h.rec, h.loaded = rec, true
	return nil
}

// record returns a copy of the current record.
func (h *Handler) record() *Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rec.clone()
}

// save persists rec and then makes it current: a token is stored before it
// is used.
func (h *Handler) save(ctx context.Context, rec *Record) error {
	if err := h.opts.Store.Save(ctx, h.key, rec); err != nil {
		return fmt.Errorf("server %s: saving credentials: %w", h.opts.ServerID, err)
	}
	h.mu.Lock()
	h.rec = rec.clone()
	h.mu.Unlock()
	return nil
}

// expiring reports whether t is within the refresh skew of its expiry. The
// skew is at most a third of the token's lifetime, so that a token living
// seconds is not refreshed on every request.
func (h *Handler) expiring(t *Token) bool {
	if t.ExpiresAt.IsZero() {
		return false
	}
	skew := h.opts.RefreshSkew
	if !t.IssuedAt.IsZero() {
		if third := t.ExpiresAt.Sub(t.IssuedAt) / 3; third < skew {
			skew = third
		}
	}
	return !h.now().Add(skew).Before(t.ExpiresAt)
}

func (h *Handler) expired(t *Token) bool {
	return !t.ExpiresAt.IsZero() && !h.now().Before(t.ExpiresAt)
}

func oauthToken(t *Token) *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: "Bearer", Expiry: t.ExpiresAt}
}

func (h *Handler) token(ctx context.Context) (*oauth2.Token, error) {
	rec := h.record()
	t := rec.Token
	if t == nil {
		return nil, nil
	}
	if !h.expiring(t) {
		return oauthToken(t), nil
	}
	current := func() (*oauth2.Token, error) {
		if h.expired(t) {
			return nil, nil // the server answers 401 and Authorize takes over
		}
		return oauthToken(t), nil
	}
	if t.RefreshToken == "" {
		return current()
	}
	// Refresh unless an authorization or refresh is already running; then
	// use what there is and let a 401 wait for it.
	select {
	case h.flow <- struct{}{}:
	default:
		return current()
	}
	defer func() { <-h.flow }()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refreshTimeout)
	defer cancel()
	err := h.refresh(rctx, t.AccessToken, "")
	switch {
	case err == nil:
		if nt := h.record().Token; nt != nil {
			return oauthToken(nt), nil
		}
		return nil, nil
	case errors.Is(err, ErrLoginRequired):
		return nil, nil
	default:
		h.log.Debug("token refresh failed", "server", h.opts.ServerID, "err", err)
		if h.expired(t) {
			return nil, err
		}
		return oauthToken(t), nil
	}
}

// refresh spends the refresh token of the token whose access token is
// rejected. It must be called holding h.flow. When the store is shared
// between processes it runs under the store's lock and re-reads the record
// first, so that a refresh done by another process is used, not repeated.
// tokenURL, if set, replaces the recorded token endpoint.
func (h *Handler) refresh(ctx context.Context, rejected, tokenURL string) error {
	if l, ok := h.opts.Store.(Locker); ok {
		unlock, err := l.Lock(ctx, h.key)
		if err != nil {
			return fmt.Errorf("server %s: locking credentials: %w", h.opts.ServerID, err)
		}
		defer unlock()
		rec, err := h.opts.Store.Load(ctx, h.key)
		if err != nil {
			return fmt.Errorf("server %s: loading credentials: %w", h.opts.ServerID, err)
		}
		if rec == nil {
			rec = &Record{}
		}
		h.mu.Lock()
		h.rec = rec
		h.mu.Unlock()
	}
	rec := h.record()
	if rec.Token == nil {
		return h.loginRequired("not logged in")
	}
	if rec.Token.AccessToken != rejected && !h.expiring(rec.Token) {
		return nil // someone else already refreshed
	}
	if rec.Token.RefreshToken == "" || rec.Client == nil {
		return h.loginRequired("token expired and no refresh token")
	}
	if tokenURL == "" {
		tokenURL = rec.TokenURL
	}
	if tokenURL == "" {
		return h.loginRequired("no token endpoint recorded")
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {rec.Token.RefreshToken},
	}
	if rec.Resource != "" {
		form.Set("resource", rec.Resource)
	}
	var dp *Record
	if isDPoP(rec.Token) {
		dp = rec // a bound token is refreshed with proofs of the same key
	}
	tr, err := h.tokenRequest(ctx, tokenURL, rec.Client, form, dp)
	if err != nil {
		var oe *OAuthError
		if !errors.As(err, &oe) || oe.temporary() {
			return fmt.Errorf("server %s: refreshing token: %w", h.opts.ServerID, err)
		}
		// The server rejected the refresh: the token is gone. A rejected
		// dynamic registration goes too.
		rec.Token = nil
		if oe.Code == "invalid_client" && rec.Client.Kind == ClientDynamic {
			rec.Client = nil
		}
		if serr := h.save(ctx, rec); serr != nil {
			h.log.Debug("saving after refresh failure", "server", h.opts.ServerID, "err", serr)
		}
		return h.loginRequired("refresh failed: " + oe.Error())
	}
	if tr.token.RefreshToken == "" {
		tr.token.RefreshToken = rec.Token.RefreshToken
	}
	rec.Token = &tr.token
	if tr.scopes != nil {
		rec.Scopes = tr.scopes
	}
	rec.TokenURL = tokenURL
	if err := h.save(ctx, rec); err != nil {
		return err
	}
	h.setReason("")
	h.log.Debug("token refreshed", "server", h.opts.ServerID)
	return nil
}

func (h *Handler) setReason(r string) {
	h.mu.Lock()
	h.reason = r
	h.mu.Unlock()
}

func (h *Handler) loginRequired(reason string) error {
	h.setReason(reason)
	return &LoginRequiredError{ServerID: h.opts.ServerID, Reason: reason}
}

// Authorize implements auth.OAuthHandler. It is called with a request the
// server answered 401 or 403. Concurrent calls are serialized: the ones that
// waited use the result of the authorization that ran meanwhile. A 401
// refreshes the token only if the rejected token is the current one; a 403
// insufficient_scope asks for the union of granted and challenged scopes, at
// most MaxStepUps times for one set of scopes.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	ch := parseChallenge(resp.Header)
	if ch.dpop {
		h.dpopChallenged.Store(true)
	}
	status := resp.StatusCode
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()

	stepUp := false
	switch status {
	case http.StatusUnauthorized:
	case http.StatusForbidden:
		if ch.err != "insufficient_scope" {
			return fmt.Errorf("server %s: request forbidden (403)", h.opts.ServerID)
		}
		stepUp = true
	default:
		return fmt.Errorf("server %s: unexpected status %d for authorization", h.opts.ServerID, status)
	}
	rejected := bearerToken(req)
	return h.serialize(ctx, func() error {
		cur := h.record()
		if cur.Token != nil && cur.Token.AccessToken != rejected && !h.expired(cur.Token) {
			if !stepUp || covers(cur.Scopes, strings.Fields(ch.scope)) {
				return nil // a flow that ran meanwhile produced a newer token
			}
		}
		return h.authorize(ctx, ch, rejected, stepUp)
	})
}

// Login runs an authorization now, without waiting for a server to ask.
func (h *Handler) Login(ctx context.Context) error {
	return h.LoginWith(ctx, h.opts.Prompter)
}

// LoginWith runs an authorization now with p as the prompter, whatever
// Options.Prompter is. The runtime connects with no prompter, so that a
// connection never prompts, and logs in with this when the user asks.
func (h *Handler) LoginWith(ctx context.Context, p LoginPrompter) error {
	if err := h.load(ctx); err != nil {
		return err
	}
	return h.serialize(ctx, func() error { return h.authorizeWith(ctx, challenge{}, "", false, p) })
}

// Logout forgets the token; forgetClient forgets the client registration too.
func (h *Handler) Logout(ctx context.Context, forgetClient bool) error {
	if err := h.load(ctx); err != nil {
		return err
	}
	return h.serialize(ctx, func() error {
		rec := h.record()
		rec.Token, rec.Scopes = nil, nil
		if forgetClient {
			rec.Client = nil
		}
		if rec.Client == nil {
			if err := h.opts.Store.Delete(ctx, h.key); err != nil {
				return fmt.Errorf("server %s: deleting credentials: %w", h.opts.ServerID, err)
			}
			h.mu.Lock()
			h.rec = &Record{}
			h.mu.Unlock()
		} else if err := h.save(ctx, rec); err != nil {
			return err
		}
		h.setReason("logged out")
		return nil
	})
}

// Status describes a handler's credentials without revealing any secret.
type Status struct {
	LoggedIn  bool
	Issuer    string
	ExpiresAt time.Time // zero when unknown
	Scopes    []string
	// ClientKind is how the client is registered (ClientDynamic,
	// ClientMetadata, ClientStatic), empty before the first login.
	ClientKind string
	// Reason says why a login is needed, when the handler knows.
	Reason string
	// DPoP reports a token bound to the handler's DPoP key (RFC 9449).
	DPoP bool
}

// Status reports the current credentials.
func (h *Handler) Status(ctx context.Context) (Status, error) {
	if err := h.load(ctx); err != nil {
		return Status{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Status{Issuer: h.rec.Issuer, Reason: h.reason, Scopes: slices.Clone(h.rec.Scopes)}
	if t := h.rec.Token; t != nil {
		s.LoggedIn = true
		s.ExpiresAt = t.ExpiresAt
		s.DPoP = isDPoP(t)
	}
	if c := h.rec.Client; c != nil {
		s.ClientKind = c.Kind
	}
	return s, nil
}

// serialize runs fn while no other authorization or refresh runs. A caller
// that waited for an authorization that failed gets that failure instead of
// starting another (which would prompt the user again).
func (h *Handler) serialize(ctx context.Context, fn func() error) error {
	if err := h.load(ctx); err != nil {
		return err
	}
	h.mu.Lock()
	gen := h.gen
	h.mu.Unlock()
	select {
	case h.flow <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("server %s: waiting for authorization: %w", h.opts.ServerID, ctx.Err())
	}
	defer func() { <-h.flow }()
	h.mu.Lock()
	if h.gen != gen && h.lastErr != nil {
		err := h.lastErr
		h.mu.Unlock()
		return err
	}
	h.mu.Unlock()
	err := fn()
	h.mu.Lock()
	h.gen++
	h.lastErr = err
	h.mu.Unlock()
	return err
}

// authorize runs discovery, then a refresh or a full login with the
// configured prompter. Called holding h.flow.
func (h *Handler) authorize(ctx context.Context, ch challenge, rejected string, stepUp bool) error {
	return h.authorizeWith(ctx, ch, rejected, stepUp, h.opts.Prompter)
}

// authorizeWith is authorize with prompter p.
func (h *Handler) authorizeWith(ctx context.Context, ch challenge, rejected string, stepUp bool, prompter LoginPrompter) error {
	d, err := h.discover(ctx, ch)
	if err != nil {
		if errors.Is(err, ErrResourceMismatch) {
			h.setReason("resource mismatch")
		}
		return err
	}
	rec := h.record()
	sameIssuer := rec.Issuer == d.issuer
	if !stepUp && sameIssuer && rec.Token != nil && rec.Token.AccessToken == rejected && rec.Token.RefreshToken != "" && rec.Client != nil {
		err := h.refresh(ctx, rejected, d.tokenURL)
		if err == nil {
			if t := h.record().Token; t != nil && t.AccessToken != rejected {
				return nil
			}
		} else if !errors.Is(err, ErrLoginRequired) {
			return err
		}
		rec = h.record()
	}

	var prior []string
	if sameIssuer {
		prior = rec.Scopes
	}
	scopes := h.selectScopes(d, ch, prior)
	if stepUp {
		k := strings.Join(scopes, " ")
		h.mu.Lock()
		n := h.stepUps[k]
		h.stepUps[k] = n + 1
		h.mu.Unlock()
		if n >= h.opts.MaxStepUps {
			return fmt.Errorf("server %s: still forbidden after %d authorizations for scope %q; giving up", h.opts.ServerID, n, k)
		}
	}
	bound, err := h.dpopWanted(d)
	if err != nil {
		return err // before anyone is asked to log in
	}
	if h.machineGrant() {
		return h.grantToken(ctx, d, scopes)
	}
	if prompter == nil {
		h.mu.Lock()
		reason := h.reason
		h.mu.Unlock()
		if reason == "" {
			reason = "not logged in"
		}
		return &LoginRequiredError{ServerID: h.opts.ServerID, Reason: reason}
	}

	var stored *Client
	preferred := ""
	if rec.Client != nil {
		preferred = rec.Client.RedirectURI
		stored = rec.Client
	}
	redirectURI, err := prompter.RedirectURI(ctx, preferred)
	if err != nil {
		return fmt.Errorf("server %s: login: %w", h.opts.ServerID, err)
	}
	cl, err := h.client(ctx, d, stored, redirectURI)
	if err != nil {
		return err
	}
	if cl.Kind == ClientDynamic && cl != stored {
		// Keep the registration even if the login fails, so a retry reuses it.
		rec.Client = cl
		if !sameIssuer {
			rec.Token, rec.Scopes, rec.Issuer = nil, nil, d.issuer
		}
		if err := h.save(ctx, rec); err != nil {
			return err
		}
	}

	verifier := oauth2.GenerateVerifier()
	state := randomString()
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {cl.ClientID},
		"redirect_uri":          {redirectURI},
		"state":                 {state},
		"code_challenge":        {oauth2.S256ChallengeFromVerifier(verifier)},
		"code_challenge_method": {"S256"},
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		q.Set("resource", d.resource)
	}
	authURL, err := addQuery(d.authorizationURL, q)
	if err != nil {
		return fmt.Errorf("server %s: authorization_endpoint: %w", h.opts.ServerID, err)
	}
	h.log.Debug("login", "server", h.opts.ServerID, "issuer", d.issuer, "scope", q.Get("scope"))
	res, err := prompter.Login(ctx, &LoginRequest{
		ServerID:    h.opts.ServerID,
		URL:         authURL,
		RedirectURI: redirectURI,
		State:       state,
		Issuer:      d.issuer,
	})
	if err != nil {
		return fmt.Errorf("server %s: login: %w", h.opts.ServerID, err)
	}
	if err := h.checkCallback(d, res, state); err != nil {
		return err
	}

	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {res.Code},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
	}
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	keys := &Record{DPoPKey: h.record().DPoPKey}
	var dp *Record
	if bound {
		dp = keys
	}
	tr, err := h.tokenRequest(ctx, d.tokenURL, cl, form, dp)
	if err != nil {
		var oe *OAuthError
		if errors.As(err, &oe) && oe.Code == "invalid_client" && cl.Kind == ClientDynamic {
			rec := h.record()
			if rec.Client != nil && rec.Client.ClientID == cl.ClientID {
				rec.Client = nil
				if serr := h.save(ctx, rec); serr != nil {
					h.log.Debug("evicting registration", "server", h.opts.ServerID, "err", serr)
				}
			}
			h.setReason("registration rejected")
			return fmt.Errorf("server %s: authorization server %s rejected the client registration (it is forgotten; the next login registers again): %w", h.opts.ServerID, d.issuer, err)
		}
		return fmt.Errorf("server %s: exchanging authorization code: %w", h.opts.ServerID, err)
	}
	granted := tr.scopes
	if granted == nil {
		granted = scopes
	}
	nrec := &Record{
		Issuer:   d.issuer,
		Resource: d.resource,
		TokenURL: d.tokenURL,
		Token:    &tr.token,
		Client:   cl,
		Scopes:   granted,
		DPoPKey:  keys.DPoPKey,
	}
	if err := h.save(ctx, nrec); err != nil {
		return err
	}
	h.setReason("")
	return nil
}

// checkCallback validates the redirect: error, state, RFC 9207 iss and code.
func (h *Handler) checkCallback(d *discovered, res *CallbackResult, state string) error {
	if res == nil {
		return fmt.Errorf("server %s: login returned no result", h.opts.ServerID)
	}
	if subtle.ConstantTimeCompare([]byte(res.State), []byte(state)) != 1 {
		return fmt.Errorf("server %s: authorization response has the wrong state; ignoring it", h.opts.ServerID)
	}
	issuer := d.issuer
	if d.meta != nil {
		issuer = d.meta.Issuer
	}
	switch {
	case res.Iss != "" && res.Iss != issuer:
		return fmt.Errorf("server %s: authorization response comes from issuer %q, not %q (RFC 9207); ignoring it", h.opts.ServerID, res.Iss, issuer)
	case res.Iss == "" && d.meta != nil && d.meta.issAdvertised:
		return fmt.Errorf("server %s: authorization response lacks the iss parameter that %s promises (RFC 9207); ignoring it", h.opts.ServerID, issuer)
	}
	if res.Error != "" {
		return fmt.Errorf("server %s: %w", h.opts.ServerID, &OAuthError{Endpoint: "authorization", Code: printable(res.Error, 64), Description: printable(res.ErrorDescription, 200)})
	}
	if res.Code == "" {
		return fmt.Errorf("server %s: authorization response has no code", h.opts.ServerID)
	}
	return nil
}

// selectScopes picks the scopes to request: the challenge's, else the
// configured ones, else the protected resource's scopes_supported, else none;
// joined with prior (the scopes granted before, for step-up and
// re-authorization); plus offline_access when the authorization server
// advertises it.
func (h *Handler) selectScopes(d *discovered, ch challenge, prior []string) []string {
	var base []string
	switch {
	case ch.scope != "":
		base = strings.Fields(ch.scope)
	case h.opts.Scope != "":
		base = strings.Fields(h.opts.Scope)
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		base = d.prm.ScopesSupported
	}
	var out []string
	for _, s := range append(slices.Clone(prior), base...) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) > 0 && d.meta != nil && slices.Contains(d.meta.ScopesSupported, "offline_access") && !slices.Contains(out, "offline_access") {
		out = append(out, "offline_access")
	}
	return out
}

func covers(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func bearerToken(req *http.Request) string {
	if req == nil {
		return ""
	}
	v := req.Header.Get("Authorization")
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return v[7:]
	}
	return ""
}

func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func addQuery(endpoint string, q url.Values) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	existing := u.Query()
	for k, vs := range q {
		existing[k] = vs
	}
	u.RawQuery = existing.Encode()
	return u.String(), nil
}
