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
)

// AuthMethodPrivateKeyJWT is RFC 7523 client authentication with a signed
// assertion.
const AuthMethodPrivateKeyJWT = "private_key_jwt"

const (
	clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	jwtBearerGrantType  = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	assertionLifetime   = 60 * time.Second
)

// machineGrant reports whether the handler obtains tokens without a user.
func (h *Handler) machineGrant() bool {
	return h.opts.Grant == GrantClientCredentials || h.opts.Grant == GrantJWTBearer
}

// grantToken runs the configured non-interactive grant. A failure is
// returned as it is: no retry, and no fallback to another grant.
func (h *Handler) grantToken(ctx context.Context, d *discovered, scopes []string) error {
	cl, err := h.machineClient(d)
	if err != nil {
		return err
	}
	form := url.Values{}
	switch h.opts.Grant {
	case GrantClientCredentials:
		form.Set("grant_type", "client_credentials")
	case GrantJWTBearer:
		if h.opts.AssertionFile == "" {
			return fmt.Errorf("server %s: oauth.grant jwt_bearer needs oauth.assertion_file", h.opts.ServerID)
		}
		raw, err := os.ReadFile(h.opts.AssertionFile)
		if err != nil {
			return fmt.Errorf("server %s: oauth.assertion_file: %w", h.opts.ServerID, err)
		}
		form.Set("grant_type", jwtBearerGrantType)
		form.Set("assertion", strings.TrimSpace(string(raw)))
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	tr, err := h.tokenRequest(ctx, d.tokenURL, cl, form)
	if err != nil {
		var oe *OAuthError
		if errors.As(err, &oe) && !oe.temporary() {
			// Rejected: retrying the same grant cannot help, and no other
			// grant is tried. The server waits until the configuration
			// (key, secret, assertion) is fixed.
			return h.loginRequired(h.opts.Grant + " grant rejected: " + oe.Error())
		}
		return fmt.Errorf("server %s: %s grant: %w", h.opts.ServerID, h.opts.Grant, err)
	}
	rec := h.record()
	rec.Issuer, rec.Resource, rec.TokenURL = d.issuer, d.resource, d.tokenURL
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
