// Package auth is mcp-host's OAuth client for MCP servers: a go-sdk
// [auth.OAuthHandler] that runs the MCP authorization flow (authorization
// code with PKCE) and keeps its tokens fresh.
//
// It covers what go-sdk's own handler leaves out or gets wrong: a protected
// resource metadata resource that names another server stops everything
// before any request reaches an authorization server; one authorization runs
// per server at a time and concurrent 401s wait for it; dynamic client
// registrations are stored with their issuer, reused, and dropped when the
// server rejects them, has forgotten them (checked before a login opens the
// browser, through RFC 7592 where offered) or the redirect URI changes; a
// login asked for before any request met a 401 probes the server for its
// challenge; the RFC 8707 resource goes
// on authorization, token and refresh requests alike; the RFC 9207 iss
// parameter is compared exactly. Only a definitive rejection (a 400 or 401
// naming invalid_grant, invalid_client or unauthorized_client) turns a
// refresh into [ErrLoginRequired]; server failures, timeouts, network errors
// and answers that are no OAuth answer keep every credential and become a
// [TransientError], retried after a backoff that honours Retry-After.
//
// A server on a public network cannot point discovery at the user's own
// machine or network: metadata, authorization server and endpoint URLs on
// loopback, link-local or private addresses are refused, by URL and again
// when connecting ([ErrPrivateAddress]), unless the server is on such a
// network itself (Options.PrivateServer, Options.TrustedHosts) or the user
// lifted the rule for it (Options.AllowPrivateAddresses).
//
// The handler never opens a browser: a [LoginPrompter] shows the
// authorization URL and returns the redirect, and only https URLs or http
// URLs on loopback are handed to it ([CheckBrowserURL]). [Loopback] is a
// prompter building block that receives the redirect on 127.0.0.1.
//
// It must not import the runtime, runtime/serve or runtime/session: the
// session calls it through the SDK's OAuthHandler and its transport hooks.
//
// [auth.OAuthHandler]: https://pkg.go.dev/github.com/modelcontextprotocol/go-sdk/auth#OAuthHandler
package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcp-host/mcp-host/redact"
)

var _ sdkauth.OAuthHandler = (*Handler)(nil)

// Handler authorizes the requests of one MCP server. It implements go-sdk's
// auth.OAuthHandler; set it as the session's OAuthHandler. It is safe for
// concurrent use.
type Handler struct {
	opts       Options
	key        Key
	log        *slog.Logger
	httpClient *http.Client
	noRedirect *http.Client
	// net keeps discovery off loopback and private addresses for a server
	// on a public network.
	net *netGuard

	// flow holds one token while an authorization or refresh runs.
	flow chan struct{}

	mu      sync.Mutex
	loaded  bool
	rec     *Record // never nil once loaded
	gen     uint64  // finished authorizations
	lastErr error   // result of the last authorization
	reason  string  // why a login is needed, when known
	// trouble is the last transient failure at a token endpoint while its
	// backoff runs; failures counts them in a row.
	trouble  *TransientError
	failures int
	stepUps  map[string]int
	// seen is the challenge of the latest 401 (seenOK: there was one),
	// for a login started without a request at hand.
	seen   challenge
	seenOK bool

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
	redact.Register(opts.ClientSecret, opts.IDPClientSecret)
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
	h.net = newNetGuard(&opts)
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	h.httpClient = h.net.client(hc)
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

func (h *Handler) load(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.loaded {
		return nil
	}
	rec, err := h.readStore(ctx)
	if err != nil {
		return err
	}
	h.rec, h.loaded = rec, true
	return nil
}

// readStore reads the server's record from the store (an empty one when
// there is none) and prepares it with fromStore.
func (h *Handler) readStore(ctx context.Context) (*Record, error) {
	rec, err := h.opts.Store.Load(ctx, h.key)
	if err != nil {
		return nil, fmt.Errorf("server %s: loading credentials: %w", h.opts.ServerID, err)
	}
	if rec == nil {
		rec = &Record{}
	}
	h.fromStore(rec)
	return rec, nil
}

// fromStore prepares a record read from the store: its secrets are
// registered with the redactor, and a configured client gets its secret
// back from the options (the store never holds it, see toStore).
func (h *Handler) fromStore(rec *Record) {
	if cl := rec.Client; cl != nil && cl.Kind == ClientStatic && cl.ClientSecret == "" && cl.ClientID == h.opts.ClientID {
		cl.ClientSecret = h.opts.ClientSecret
	}
	registerSecrets(rec)
}

// toStore returns what of rec goes to the store: a configured client's
// secret stays where the user put it (the config file or the ${VAR} it
// names), so rotating it there takes effect and no second copy lingers in
// the token store.
func toStore(rec *Record) *Record {
	if rec.Client == nil || rec.Client.Kind != ClientStatic || rec.Client.ClientSecret == "" {
		return rec
	}
	c := rec.clone()
	c.Client.ClientSecret = ""
	return c
}

// record returns a copy of the current record: an empty one before the
// record is loaded (the transport hook can see a request before anything
// loaded it, for example one carrying a static Authorization header).
func (h *Handler) record() *Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rec == nil {
		return &Record{}
	}
	return h.rec.clone()
}

// save persists rec and then makes it current: a token is stored before it
// is used.
func (h *Handler) save(ctx context.Context, rec *Record) error {
	registerSecrets(rec)
	if err := h.opts.Store.Save(ctx, h.key, toStore(rec)); err != nil {
		return fmt.Errorf("server %s: saving credentials: %w", h.opts.ServerID, err)
	}
	h.mu.Lock()
	h.rec = rec.clone()
	h.mu.Unlock()
	h.changed()
	return nil
}

// changed reports a change to Options.OnChange. Call it with no lock held.
func (h *Handler) changed() {
	if h.opts.OnChange != nil {
		h.opts.OnChange()
	}
}

func (h *Handler) setReason(r string) {
	h.mu.Lock()
	same := h.reason == r
	h.reason = r
	h.mu.Unlock()
	if !same {
		h.changed()
	}
}

func (h *Handler) loginRequired(reason string) error {
	h.setReason(reason)
	return &LoginRequiredError{ServerID: h.opts.ServerID, Reason: reason}
}

// Login runs an authorization now, without waiting for a server to ask.
func (h *Handler) Login(ctx context.Context) error {
	return h.LoginWith(ctx, h.opts.Prompter)
}

// LoginWith runs an authorization now with p as the prompter, whatever
// Options.Prompter is. The runtime connects with no prompter, so that a
// connection never prompts, and logs in with this when the user asks.
//
// It may come before any request met the server's 401: then it asks the
// server itself (see probeChallenge) for the challenge that names the
// protected resource metadata. It waits for an authorization in progress
// (a connection's, which cannot prompt) and then runs its own, whatever
// that one's outcome.
func (h *Handler) LoginWith(ctx context.Context, p LoginPrompter) error {
	if err := h.load(ctx); err != nil {
		return err
	}
	return h.serializeWith(ctx, false, func() error {
		ch, ok := h.lastChallenge()
		if !ok {
			ch = h.probeChallenge(ctx)
		}
		return h.authorizeWith(ctx, ch, "", false, p)
	})
}

// noteChallenge remembers the challenge of the latest 401, for logins
// started without one.
func (h *Handler) noteChallenge(ch challenge) {
	if ch.dpop {
		h.dpopChallenged.Store(true)
	}
	h.mu.Lock()
	h.seen, h.seenOK = ch, true
	h.mu.Unlock()
}

func (h *Handler) lastChallenge() (challenge, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen, h.seenOK
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
	// Transient says why the authorization server could not be used at the
	// last attempt (it answered 503, timed out, ...) while every credential
	// was kept; empty once it answers again.
	Transient string
	// RetryAt is when the handler asks that server again after Transient.
	RetryAt time.Time
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
	if te := h.trouble; te != nil {
		s.Transient, s.RetryAt = te.Reason, te.RetryAt
	}
	return s, nil
}

// serialize runs fn while no other authorization or refresh runs. A caller
// that waited for an authorization that failed gets that failure instead of
// starting another (which would prompt the user again).
func (h *Handler) serialize(ctx context.Context, fn func() error) error {
	return h.serializeWith(ctx, true, fn)
}

// serializeWith is serialize; with inherit false, fn runs after the wait
// whatever the authorization waited for returned.
func (h *Handler) serializeWith(ctx context.Context, inherit bool, fn func() error) error {
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
	if inherit && h.gen != gen && h.lastErr != nil {
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
