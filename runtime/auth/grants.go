package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwt"

	"github.com/mcp-host/mcp-host/redact"
)

// Grants, chosen by Options.Grant.
const (
	// GrantAuthorizationCode is the interactive login (the default).
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials authenticates the client itself (a secret or
	// a private_key_jwt assertion); no user, no browser.
	GrantClientCredentials = "client_credentials"
	// GrantJWTBearer presents a workload identity JWT (RFC 7523 section
	// 2.1), read fresh from Options.AssertionFile for every request.
	GrantJWTBearer = "jwt_bearer"
	// GrantEnterprise is enterprise-managed authorization (SEP-990): the
	// user's ID token from the enterprise identity provider, read fresh from
	// Options.IDTokenFile, is exchanged there (RFC 8693) for an ID-JAG,
	// which is then presented to the authorization server as a jwt-bearer
	// grant with this client's advertised authentication.
	GrantEnterprise = "enterprise"
)

// AuthMethodPrivateKeyJWT is RFC 7523 client authentication with a signed
// assertion.
const AuthMethodPrivateKeyJWT = "private_key_jwt"

const (
	clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	jwtBearerGrantType  = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenExchangeGrant  = "urn:ietf:params:oauth:grant-type:token-exchange"
	idTokenType         = "urn:ietf:params:oauth:token-type:id_token"
	idJAGTokenType      = "urn:ietf:params:oauth:token-type:id-jag"
	assertionLifetime   = 60 * time.Second
)

// machineGrant reports whether the handler obtains tokens without a user.
func (h *Handler) machineGrant() bool {
	switch h.opts.Grant {
	case GrantClientCredentials, GrantJWTBearer, GrantEnterprise:
		return true
	}
	return false
}

// grantToken runs the configured non-interactive grant. A failure is
// returned as it is: no retry, and no fallback to another grant.
func (h *Handler) grantToken(ctx context.Context, d *discovered, scopes []string) error {
	cl, err := h.machineClient(d)
	if err != nil {
		return err
	}
	if err := h.backingOff(); err != nil {
		return err
	}
	form := url.Values{}
	switch h.opts.Grant {
	case GrantClientCredentials:
		form.Set("grant_type", "client_credentials")
	case GrantJWTBearer:
		assertion, err := h.workloadAssertion()
		if err != nil {
			return err
		}
		form.Set("grant_type", jwtBearerGrantType)
		form.Set("assertion", assertion)
	case GrantEnterprise:
		jag, err := h.idJAG(ctx, d, scopes)
		if err != nil {
			return err
		}
		form.Set("grant_type", jwtBearerGrantType)
		form.Set("assertion", jag)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	rec := h.record()
	var dp *Record
	if bound, err := h.dpopWanted(d); err != nil {
		return err
	} else if bound {
		dp = rec
	}
	tr, err := h.tokenRequest(ctx, d.tokenURL, cl, form, dp)
	if err != nil {
		var oe *OAuthError
		if errors.As(err, &oe) && oe.rejected() {
			// Rejected: retrying the same grant cannot help, and no other
			// grant is tried. The server waits until the configuration
			// (key, secret, assertion) is fixed.
			return h.loginRequired(h.opts.Grant + " grant rejected: " + oe.Error())
		}
		return h.transient(ctx, h.opts.Grant+" grant", err)
	}
	h.recovered()
	rec.Issuer, rec.Resource, rec.TokenURL = d.issuer, d.resource, d.tokenURL
	if d.meta != nil {
		rec.RevocationURL = d.meta.RevocationEndpoint
	}
	rec.Token, rec.Client = &tr.token, cl
	rec.Scopes = tr.scopes
	if rec.Scopes == nil {
		rec.Scopes = scopes
	}
	if err := h.save(ctx, rec); err != nil {
		return err
	}
	h.setReason("")
	return nil
}

// workloadAssertion reads the workload identity JWT afresh: from
// Options.AssertionFile, else from the environment variable
// Options.AssertionEnv.
func (h *Handler) workloadAssertion() (string, error) {
	switch {
	case h.opts.AssertionFile != "":
		raw, err := os.ReadFile(h.opts.AssertionFile)
		if err != nil {
			return "", fmt.Errorf("server %s: oauth.assertion_file: %w", h.opts.ServerID, err)
		}
		if a := strings.TrimSpace(string(raw)); a != "" {
			redact.RegisterShortLived(a)
			return a, nil
		}
		return "", fmt.Errorf("server %s: oauth.assertion_file %s is empty", h.opts.ServerID, h.opts.AssertionFile)
	case h.opts.AssertionEnv != "":
		if a := strings.TrimSpace(os.Getenv(h.opts.AssertionEnv)); a != "" {
			redact.RegisterShortLived(a)
			return a, nil
		}
		return "", fmt.Errorf("server %s: oauth.assertion_env: $%s is unset or empty", h.opts.ServerID, h.opts.AssertionEnv)
	}
	return "", fmt.Errorf("server %s: oauth.grant jwt_bearer needs oauth.assertion_file or oauth.assertion_env", h.opts.ServerID)
}

// idJAG exchanges the user's ID token at the enterprise identity provider
// for an Identity Assertion JWT Authorization Grant naming the authorization
// server in d as audience and the MCP server as resource (RFC 8693, SEP-990).
// A rejection asks for a new ID token, not a retry.
func (h *Handler) idJAG(ctx context.Context, d *discovered, scopes []string) (string, error) {
	if h.opts.IDTokenFile == "" {
		return "", fmt.Errorf("server %s: oauth.grant enterprise needs oauth.id_token_file", h.opts.ServerID)
	}
	raw, err := os.ReadFile(h.opts.IDTokenFile)
	if err != nil {
		return "", fmt.Errorf("server %s: oauth.id_token_file: %w", h.opts.ServerID, err)
	}
	endpoint, err := h.idpTokenURL(ctx)
	if err != nil {
		return "", err
	}
	redact.RegisterShortLived(strings.TrimSpace(string(raw)))
	resource := d.resource
	if resource == "" {
		resource = canonicalResource(h.opts.ServerURL)
	}
	form := url.Values{
		"grant_type":           {tokenExchangeGrant},
		"requested_token_type": {idJAGTokenType},
		"subject_token":        {strings.TrimSpace(string(raw))},
		"subject_token_type":   {idTokenType},
		"audience":             {d.issuer},
		"resource":             {resource},
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	idp := &Client{Kind: ClientStatic, Issuer: h.opts.IDPIssuer, ClientID: h.opts.IDPClientID, ClientSecret: h.opts.IDPClientSecret, AuthMethod: AuthMethodNone}
	if idp.ClientSecret != "" {
		idp.AuthMethod = AuthMethodBasic
	}
	tr, err := h.tokenRequest(ctx, endpoint, idp, form, nil)
	if err != nil {
		var oe *OAuthError
		if errors.As(err, &oe) && oe.rejected() {
			return "", h.loginRequired("identity provider rejected the ID token exchange: " + oe.Error())
		}
		return "", h.transient(ctx, "ID token exchange at "+showURL(endpoint), err)
	}
	if tr.issuedType != "" && tr.issuedType != idJAGTokenType {
		return "", fmt.Errorf("server %s: identity provider issued a %q, not an ID-JAG", h.opts.ServerID, clean(tr.issuedType, maxShownCode))
	}
	redact.RegisterShortLived(tr.token.AccessToken)
	return tr.token.AccessToken, nil
}

// idpTokenURL is the identity provider's token endpoint: configured, or
// found in its OpenID Connect (else RFC 8414) metadata.
func (h *Handler) idpTokenURL(ctx context.Context) (string, error) {
	if h.opts.IDPTokenURL != "" {
		return h.opts.IDPTokenURL, nil
	}
	if h.opts.IDPIssuer == "" {
		return "", fmt.Errorf("server %s: oauth.grant enterprise needs oauth.idp_issuer or oauth.idp_token_url", h.opts.ServerID)
	}
	base := strings.TrimSuffix(h.opts.IDPIssuer, "/")
	for _, u := range []string{base + "/.well-known/openid-configuration", base + "/.well-known/oauth-authorization-server"} {
		var m struct {
			Issuer        string `json:"issuer"`
			TokenEndpoint string `json:"token_endpoint"`
		}
		if err := h.getJSON(ctx, u, &m); err != nil {
			if absent(err) {
				continue
			}
			return "", fmt.Errorf("server %s: identity provider %s: %w", h.opts.ServerID, h.opts.IDPIssuer, err)
		}
		if !sameIssuer(m.Issuer, h.opts.IDPIssuer) || m.TokenEndpoint == "" {
			return "", fmt.Errorf("server %s: identity provider metadata at %s names issuer %q or lacks token_endpoint", h.opts.ServerID, u, showURL(m.Issuer))
		}
		if err := h.net.checkURL(ctx, m.TokenEndpoint); err != nil {
			return "", fmt.Errorf("server %s: identity provider token_endpoint: %w", h.opts.ServerID, err)
		}
		return m.TokenEndpoint, nil
	}
	return "", fmt.Errorf("server %s: identity provider %s publishes no metadata; set oauth.idp_token_url", h.opts.ServerID, h.opts.IDPIssuer)
}

// machineClient is the client of a non-interactive grant: always
// pre-registered, authenticating with a private key when one is
// configured, else as the server advertises.
func (h *Handler) machineClient(d *discovered) (*Client, error) {
	if h.opts.ClientID == "" {
		return nil, fmt.Errorf("server %s: oauth.grant %s needs oauth.client_id", h.opts.ServerID, h.opts.Grant)
	}
	cl := &Client{Kind: ClientStatic, Issuer: d.issuer, ClientID: h.opts.ClientID, ClientSecret: h.opts.ClientSecret}
	switch {
	case len(h.opts.PrivateKeyPEM) > 0:
		var supported []string
		if d.meta != nil {
			supported = d.meta.TokenEndpointAuthMethodsSupported
		}
		if len(supported) > 0 && !slices.Contains(supported, AuthMethodPrivateKeyJWT) {
			return nil, fmt.Errorf("server %s: a private key is configured but %s does not accept private_key_jwt", h.opts.ServerID, d.issuer)
		}
		cl.AuthMethod = AuthMethodPrivateKeyJWT
	case h.opts.Grant == GrantJWTBearer && h.opts.ClientSecret == "":
		cl.AuthMethod = AuthMethodNone
	default:
		cl.AuthMethod = staticAuthMethod(d.meta, h.opts.ClientSecret != "")
	}
	return cl, nil
}

// clientAssertion signs the RFC 7523 client authentication JWT: iss and
// sub the client id, aud the authorization server's issuer.
func (h *Handler) clientAssertion(cl *Client) (string, error) {
	key, err := parsePrivateKey(h.opts.PrivateKeyPEM)
	if err != nil {
		return "", fmt.Errorf("server %s: oauth private key: %w", h.opts.ServerID, err)
	}
	alg := jwa.SignatureAlgorithm(h.opts.SigningAlg)
	if alg == "" {
		alg, err = defaultAlg(key)
		if err != nil {
			return "", fmt.Errorf("server %s: oauth private key: %w", h.opts.ServerID, err)
		}
	}
	now := h.now()
	tok, err := jwt.NewBuilder().
		Issuer(cl.ClientID).Subject(cl.ClientID).Audience([]string{cl.Issuer}).
		JwtID(randomString()).IssuedAt(now).Expiration(now.Add(assertionLifetime)).
		Build()
	if err != nil {
		return "", err
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(alg, key))
	if err != nil {
		return "", fmt.Errorf("server %s: signing the client assertion: %w", h.opts.ServerID, err)
	}
	return string(signed), nil
}

// parsePrivateKey reads a PEM private key: PKCS #8, EC or PKCS #1.
func parsePrivateKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, errors.New("PKCS #8 key cannot sign")
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, errors.New("not a PKCS #8, EC or PKCS #1 private key")
}

func defaultAlg(key crypto.Signer) (jwa.SignatureAlgorithm, error) {
	switch key.(type) {
	case *ecdsa.PrivateKey:
		return jwa.ES256, nil
	case *rsa.PrivateKey:
		return jwa.RS256, nil
	case ed25519.PrivateKey:
		return jwa.EdDSA, nil
	}
	return "", fmt.Errorf("unsupported key type %T", key)
}
