package auth

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Defaults applied when an [Options] field is zero.
const (
	// DefaultRefreshSkew is how long before its expiry a token is refreshed.
	DefaultRefreshSkew = 60 * time.Second
	// DefaultMaxStepUps bounds the authorizations run for one set of scopes
	// after 403 insufficient_scope answers.
	DefaultMaxStepUps = 3
	// DefaultClientName is the client_name sent in dynamic registration.
	DefaultClientName = "mcp-host"
)

// Options configures a [Handler]. ServerID and ServerURL are required; every
// other field has a default or is optional.
type Options struct {
	// ServerID names the server in errors and logs.
	ServerID string
	// ServerURL is the MCP endpoint the tokens are for.
	ServerURL string

	// ClientID and ClientSecret are a pre-registered client. They are used
	// when the authorization server does not accept a Client ID Metadata
	// Document (or none is configured).
	ClientID     string
	ClientSecret string
	// ClientMetadataURL is the https URL of this client's Client ID Metadata
	// Document; it becomes the client_id where the server supports it.
	ClientMetadataURL string
	// ClientName is sent in dynamic client registration; empty means
	// DefaultClientName.
	ClientName string

	// Grant is GrantAuthorizationCode (default, interactive),
	// GrantClientCredentials or GrantJWTBearer (both without a user).
	Grant string
	// PrivateKeyPEM, when set, authenticates the client with a signed
	// private_key_jwt assertion (RFC 7523) instead of a secret. SigningAlg
	// is its JWS algorithm; empty picks one from the key (ES256, RS256,
	// EdDSA).
	PrivateKeyPEM []byte
	SigningAlg    string
	// AssertionFile holds the workload identity JWT of GrantJWTBearer; it
	// is read afresh for every token request, so a rotated file is used.
	AssertionFile string
	// AssertionEnv names an environment variable holding that JWT instead;
	// it is read afresh too.
	AssertionEnv string
	// IDTokenFile holds the user's ID token from the enterprise identity
	// provider for GrantEnterprise; it is read afresh for every exchange.
	// IDPIssuer (whose metadata gives the token endpoint) or IDPTokenURL
	// locate that provider; IDPClientID and IDPClientSecret are this client
	// there.
	IDTokenFile     string
	IDPIssuer       string
	IDPTokenURL     string
	IDPClientID     string
	IDPClientSecret string

	// DPoP chooses sender-constrained tokens (RFC 9449): DPoPAuto (the
	// default) uses them where the authorization server offers them or the
	// resource requires them, DPoPRequire refuses a server that cannot issue
	// them, DPoPOff never uses them.
	DPoP string

	// Scope, if set, is requested when the server's challenge names no scope,
	// instead of the protected resource's scopes_supported.
	Scope string

	// AuthorizationURL, TokenURL and RegistrationURL override the endpoints
	// found by discovery.
	AuthorizationURL string
	TokenURL         string
	RegistrationURL  string

	// Resource overrides the RFC 8707 resource indicator, which otherwise is
	// the protected resource metadata's resource (or the server URL when the
	// server publishes none). OmitResource sends no resource parameter at all.
	Resource     string
	OmitResource bool

	// Prompter runs the interactive part of a login. Nil means the handler
	// never logs in: where a login is needed, Authorize returns an error
	// matching ErrLoginRequired.
	Prompter LoginPrompter
	// Store persists tokens and client registrations. Nil means an in-memory
	// store private to this handler.
	Store Store

	// HTTPClient makes every request to authorization servers and metadata
	// endpoints. Nil means a client with a 30 second timeout. Redirects are
	// never followed for token and registration requests. The handler uses
	// a copy whose dialer refuses loopback, link-local and private addresses
	// for a server on a public network (see PrivateServer); a Transport that
	// is not an *http.Transport cannot be guarded that way, and then only
	// the URLs are checked.
	HTTPClient *http.Client

	// PrivateServer reports whether the MCP server counts as being on a
	// loopback, link-local or private network (RFC 1918, CGNAT 100.64/10,
	// IPv6 ULA and link-local). Only then may discovery, token,
	// registration and revocation requests reach such addresses, and the
	// URLs in metadata name them: a server on a public network must not
	// point the host at the user's own machine or network. Nil decides from
	// the server URL's host: an address in those ranges, "localhost", or a
	// name all of whose addresses are in them.
	PrivateServer func(ctx context.Context) bool
	// AllowPrivateAddresses lifts that rule for this server altogether:
	// metadata, authorization servers and endpoints may be on loopback,
	// link-local and private addresses whatever the server's own address.
	// It is the user's explicit choice for one server (config
	// oauth.allow_private_addresses), for example a public MCP server whose
	// authorization server sits inside the company network; it wins over
	// PrivateServer. TrustedHosts is the narrower choice.
	AllowPrivateAddresses bool
	// TrustedHosts are "host:port" pairs that may be reached whatever their
	// address: the user's own choice, for example an authorization server
	// inside the company network for a server outside it. The server URL's
	// host and the hosts of the endpoints configured above are trusted
	// already.
	TrustedHosts []string
	// RefreshSkew is how long before expiry a token is refreshed.
	RefreshSkew time.Duration
	// MaxStepUps bounds the authorizations run for one set of scopes after
	// 403 insufficient_scope answers.
	MaxStepUps int
	// Logger receives debug logs, which never contain a secret. Nil
	// discards them.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// OnChange, if set, is called after the credentials or their state
	// changed (a login, a refresh, a logout, a rejection, a transient
	// failure), so that a status display can follow them. It runs on the
	// goroutine that made the change, possibly inside a request, with no
	// handler lock held: it may call Status, and must return quickly.
	OnChange func()
}

// LoginPrompter runs the user-facing part of an authorization code login: it
// shows the authorization URL (after asking for consent, in a browser, or by
// printing it) and returns what the authorization server sent to the redirect
// URI. The handler never opens a browser itself.
//
// A prompter that implements io.Closer is closed when a login ends, however
// it ends (declined, failed before Login, failed, succeeded), so that what
// RedirectURI set up (a bound callback listener) never outlives the login;
// it must be usable for another login afterwards, as [Loopback] is. A
// prompter that implements [Consenter] is asked before anything happens at
// the authorization server.
type LoginPrompter interface {
	// RedirectURI returns the redirect URI the next Login will receive on.
	// preferred is the URI used last time for this server (empty the first
	// time); an implementation returns it again where it can, because a
	// changed redirect URI costs a new client registration.
	RedirectURI(ctx context.Context, preferred string) (string, error)
	// Login presents req.URL to the user and waits for the redirect. It
	// returns the parameters of the redirect as received: the handler checks
	// state and iss itself.
	Login(ctx context.Context, req *LoginRequest) (*CallbackResult, error)
}

// A Consenter is a [LoginPrompter] that asks the user before a login
// starts. The handler calls Consent before anything happens for the login
// at the authorization server (in particular before a dynamic client
// registration), and Login afterwards shows the URL without asking again. A
// prompter that is not a Consenter has to ask inside Login, after the
// registration.
type Consenter interface {
	// Consent asks whether to log in to req.ServerID at req.Issuer; only
	// those two fields are set. It returns false when the user declines;
	// the login then fails with an error matching ErrLoginDeclined.
	Consent(ctx context.Context, req *LoginRequest) (bool, error)
}

// LoginRequest describes one login for a [LoginPrompter].
type LoginRequest struct {
	// ServerID names the MCP server the login is for.
	ServerID string
	// URL is the authorization URL to open.
	URL string
	// RedirectURI is the URI the authorization server redirects to.
	RedirectURI string
	// State is the state parameter in URL; a callback listener may use it to
	// reject stray requests early.
	State string
	// Issuer is the authorization server, for display.
	Issuer string
}

// CallbackResult holds the query parameters of the redirect that ended a
// login.
type CallbackResult struct {
	Code             string
	State            string
	Iss              string
	Error            string
	ErrorDescription string
}

// Key identifies one server's credentials in a [Store]: the server id and
// its URL, so that a changed URL never reuses tokens.
type Key struct {
	ServerID string
	URL      string
}

// Store persists one [Record] per server. Load returns (nil, nil) when there
// is no record. Implementations must be safe for concurrent use.
type Store interface {
	Load(ctx context.Context, key Key) (*Record, error)
	Save(ctx context.Context, key Key, rec *Record) error
	Delete(ctx context.Context, key Key) error
}

// Locker is implemented by stores shared between processes. The handler
// holds the lock while it refreshes a token, re-reading the record under it,
// so that two processes never spend the same refresh token.
type Locker interface {
	Lock(ctx context.Context, key Key) (unlock func(), err error)
}

// Record is what a [Store] keeps for one server.
type Record struct {
	// Issuer is the authorization server the token was issued by.
	Issuer string `json:"issuer,omitempty"`
	// Resource is the resource indicator the token was requested for; the
	// same value goes on every refresh.
	Resource string `json:"resource,omitempty"`
	// TokenURL is the token endpoint the token came from, for refreshes.
	TokenURL string `json:"token_url,omitempty"`
	// Token is the current token; nil when logged out.
	Token *Token `json:"token,omitempty"`
	// Client is the client registration, bound to Client.Issuer.
	Client *Client `json:"client,omitempty"`
	// Scopes are the scopes granted with Token.
	Scopes []string `json:"scopes,omitempty"`
	// RevocationURL is the authorization server's RFC 7009 revocation
	// endpoint, where its metadata advertised one at login.
	RevocationURL string `json:"revocation_url,omitempty"`
	// DPoPKey is the private JWK a DPoP-bound Token is bound to.
	DPoPKey string `json:"dpop_key,omitempty"`
}

// Token is an OAuth access token with its refresh token.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
	// IssuedAt is when the token was received; with ExpiresAt it bounds
	// the refresh skew for short-lived tokens.
	IssuedAt time.Time `json:"issued_at,omitzero"`
}

// Registration kinds recorded in [Client.Kind].
const (
	ClientDynamic  = "dynamic"  // dynamic client registration (RFC 7591)
	ClientMetadata = "metadata" // Client ID Metadata Document
	ClientStatic   = "static"   // pre-registered
)

// Client is a client registration at one authorization server.
type Client struct {
	Kind         string `json:"kind"`
	Issuer       string `json:"issuer"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is the token endpoint auth method: client_secret_basic,
	// client_secret_post or none.
	AuthMethod  string `json:"auth_method,omitempty"`
	RedirectURI string `json:"redirect_uri,omitempty"`
	// SecretExpiresAt is when the client secret expires; zero means never.
	SecretExpiresAt time.Time `json:"secret_expires_at,omitzero"`
	// Confirmed says a token was obtained with this registration. A
	// dynamic registration that is not confirmed is dropped when a login
	// with it fails.
	Confirmed bool `json:"confirmed,omitempty"`
	// RegistrationClientURI and RegistrationAccessToken let a dynamic
	// client read its registration (RFC 7592), where the server issued
	// them: a login checks with them that the server still knows it.
	RegistrationClientURI   string `json:"registration_client_uri,omitempty"`
	RegistrationAccessToken string `json:"registration_access_token,omitempty"`
}

func (r *Record) clone() *Record {
	if r == nil {
		return nil
	}
	c := *r
	if r.Token != nil {
		t := *r.Token
		c.Token = &t
	}
	if r.Client != nil {
		cl := *r.Client
		c.Client = &cl
	}
	c.Scopes = append([]string(nil), r.Scopes...)
	return &c
}
