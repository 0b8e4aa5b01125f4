package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcp-host/mcp-host/redact"
)

const maxRegistrationResponseBytes = 1 << 20

// client picks the client registration for an authorization at d's issuer,
// in the order: Client ID Metadata Document (when the server supports it and
// one is configured), pre-registered client, stored dynamic registration
// (same issuer and redirect URI), new dynamic registration.
func (h *Handler) client(ctx context.Context, d *discovered, stored *Client, redirectURI string) (*Client, error) {
	if d.meta != nil && d.meta.ClientIDMetadataDocumentSupported && h.opts.ClientMetadataURL != "" {
		return &Client{Kind: ClientMetadata, Issuer: d.issuer, ClientID: h.opts.ClientMetadataURL, AuthMethod: AuthMethodNone, RedirectURI: redirectURI}, nil
	}
	if h.opts.ClientID != "" {
		return &Client{
			Kind:         ClientStatic,
			Issuer:       d.issuer,
			ClientID:     h.opts.ClientID,
			ClientSecret: h.opts.ClientSecret,
			AuthMethod:   staticAuthMethod(d.meta, h.opts.ClientSecret != ""),
			RedirectURI:  redirectURI,
		}, nil
	}
	if stored != nil && stored.Kind == ClientDynamic && stored.Issuer == d.issuer && stored.RedirectURI == redirectURI &&
		(stored.SecretExpiresAt.IsZero() || h.now().Before(stored.SecretExpiresAt)) {
		return stored, nil
	}
	if d.registrationURL == "" {
		return nil, fmt.Errorf("server %s: authorization server %s offers no dynamic client registration and no client_id is configured", h.opts.ServerID, d.issuer)
	}
	return h.register(ctx, d, redirectURI)
}

// staticAuthMethod chooses how a pre-registered client authenticates at the
// token endpoint, from what the server advertises (RFC 8414 defaults to
// client_secret_basic).
func staticAuthMethod(meta *serverMeta, hasSecret bool) string {
	if !hasSecret {
		return AuthMethodNone
	}
	var supported []string
	if meta != nil {
		supported = meta.TokenEndpointAuthMethodsSupported
	}
	switch {
	case len(supported) == 0, slices.Contains(supported, AuthMethodBasic):
		return AuthMethodBasic
	case slices.Contains(supported, AuthMethodPost):
		return AuthMethodPost
	case slices.Contains(supported, AuthMethodNone):
		return AuthMethodNone
	}
	return AuthMethodBasic
}

// registrationAuthMethod is the method asked for in dynamic registration: a
// public client ("none") where the server allows it, else a secret.
func registrationAuthMethod(meta *serverMeta) string {
	var supported []string
	if meta != nil {
		supported = meta.TokenEndpointAuthMethodsSupported
	}
	switch {
	case len(supported) == 0, slices.Contains(supported, AuthMethodNone):
		return AuthMethodNone
	case slices.Contains(supported, AuthMethodBasic):
		return AuthMethodBasic
	case slices.Contains(supported, AuthMethodPost):
		return AuthMethodPost
	}
	return AuthMethodNone
}

// register runs RFC 7591 dynamic client registration.
func (h *Handler) register(ctx context.Context, d *discovered, redirectURI string) (*Client, error) {
	method := registrationAuthMethod(d.meta)
	meta := oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{redirectURI},
		TokenEndpointAuthMethod: method,
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		ClientName:              h.opts.ClientName,
		ApplicationType:         "native",
	}
	payload, err := json.Marshal(&meta)
	if err != nil {
		return nil, fmt.Errorf("server %s: registration request: %w", h.opts.ServerID, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.registrationURL, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("server %s: registration endpoint %s: %w", h.opts.ServerID, showURL(d.registrationURL), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := h.noRedirect.Do(req)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", h.opts.ServerID, &OAuthError{Endpoint: "registration", Description: redactURLError(err)})
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRegistrationResponseBytes))
	if err != nil {
		return nil, fmt.Errorf("server %s: registration endpoint %s: reading response: %w", h.opts.ServerID, showURL(d.registrationURL), err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("server %s: %w", h.opts.ServerID, oauthErrorFrom("registration", resp.StatusCode, body))
	}
	var rr oauthex.ClientRegistrationResponse
	if err := json.Unmarshal(body, &rr); err != nil {
		return nil, fmt.Errorf("server %s: registration endpoint %s: response is not a registration object", h.opts.ServerID, showURL(d.registrationURL))
	}
	var mgmt struct {
		URI   string `json:"registration_client_uri"`
		Token string `json:"registration_access_token"`
	}
	_ = json.Unmarshal(body, &mgmt)
	redact.Register(rr.ClientSecret, mgmt.Token)
	if rr.ClientID == "" {
		return nil, fmt.Errorf("server %s: registration endpoint %s: response has no client_id", h.opts.ServerID, showURL(d.registrationURL))
	}
	cl := &Client{
		Kind:            ClientDynamic,
		Issuer:          d.issuer,
		ClientID:        rr.ClientID,
		ClientSecret:    rr.ClientSecret,
		AuthMethod:      method,
		RedirectURI:     redirectURI,
		SecretExpiresAt: rr.ClientSecretExpiresAt,
	}
	if mgmt.URI != "" && mgmt.Token != "" {
		if sameOrigin(mgmt.URI, d.registrationURL) && checkEndpoint(mgmt.URI) == nil {
			cl.RegistrationClientURI, cl.RegistrationAccessToken = mgmt.URI, mgmt.Token
		} else {
			h.log.Debug("registration_client_uri ignored: not at the registration endpoint's origin", "server", h.opts.ServerID)
		}
	}
	if m := rr.TokenEndpointAuthMethod; m != "" {
		cl.AuthMethod = m
	} else if cl.ClientSecret != "" && method == AuthMethodNone {
		cl.AuthMethod = staticAuthMethod(d.meta, true)
	}
	if cl.AuthMethod != AuthMethodNone && cl.ClientSecret == "" {
		return nil, fmt.Errorf("server %s: registration endpoint %s: client registered for %s without a client_secret", h.opts.ServerID, showURL(d.registrationURL), clean(cl.AuthMethod, maxShownCode))
	}
	h.log.Debug("registered client", "server", h.opts.ServerID, "issuer", d.issuer, "auth_method", cl.AuthMethod)
	return cl, nil
}
