package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// maxMetadataBytes bounds a metadata document.
const maxMetadataBytes = 1 << 20

// challenge is the part of a WWW-Authenticate Bearer (or DPoP) challenge the
// handler uses.
type challenge struct {
	resourceMetadata string
	scope            string
	err              string
	// dpop says the server challenged with the DPoP scheme (RFC 9449
	// section 7.1): it takes DPoP-bound tokens.
	dpop bool
}

func parseChallenge(h http.Header) challenge {
	var c challenge
	chs, err := oauthex.ParseWWWAuthenticate(h.Values("WWW-Authenticate"))
	if err != nil {
		return c
	}
	for _, ch := range chs {
		if ch.Scheme != "bearer" && ch.Scheme != "dpop" {
			continue
		}
		c.dpop = c.dpop || ch.Scheme == "dpop"
		if c.resourceMetadata == "" {
			c.resourceMetadata = ch.Params["resource_metadata"]
		}
		if c.scope == "" {
			c.scope = ch.Params["scope"]
		}
		if c.err == "" {
			c.err = ch.Params["error"]
		}
	}
	return c
}

// serverMeta is the part of RFC 8414 / OpenID Connect discovery metadata the
// handler uses beyond [oauthex.AuthServerMeta].
type serverMeta struct {
	oauthex.AuthServerMeta
	// issAdvertised is authorization_response_iss_parameter_supported.
	issAdvertised bool
	// dpopAlgs is dpop_signing_alg_values_supported (RFC 9449).
	dpopAlgs []string
}

// discovered is the outcome of discovery for one authorization.
type discovered struct {
	// resource is the resource indicator to send (may be empty: omit).
	resource string
	// prm is the protected resource metadata; nil for a 2025-03-26 server.
	prm *oauthex.ProtectedResourceMetadata
	// issuer is the chosen authorization server.
	issuer string
	// meta is its metadata; nil when it publishes none (2025-03-26 fallback).
	meta *serverMeta
	// endpoints, after overrides and fallbacks.
	authorizationURL, tokenURL, registrationURL string
}

// quotedError is a failure whose message is a redacted rendering of the
// wrapped error's.
type quotedError struct {
	msg string
	err error
}

func (e *quotedError) Error() string { return e.msg }
func (e *quotedError) Unwrap() error { return e.err }

// statusError is a non-200 answer to a metadata request.
type statusError struct {
	url  string
	code int
}

func (e *statusError) Error() string { return fmt.Sprintf("GET %s: status %d", showURL(e.url), e.code) }

// absent reports whether err means "no document here" (a 4xx answer), as
// opposed to a failure worth reporting.
func absent(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.code >= 400 && se.code < 500
}

func (h *Handler) getJSON(ctx context.Context, u string, v any) error {
	if err := h.net.checkURL(ctx, u); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", showURL(u), err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.httpClient.Do(req)
	if err != nil {
		return &quotedError{msg: redactURLError(err), err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return &statusError{url: u, code: resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return fmt.Errorf("GET %s: reading body: %w", showURL(u), err)
	}
	if len(body) > maxMetadataBytes {
		return fmt.Errorf("GET %s: document larger than %d bytes", showURL(u), maxMetadataBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: invalid JSON: %w", showURL(u), err)
	}
	return nil
}

// discover finds the protected resource metadata and the authorization
// server for ch. A resource mismatch is fatal: it returns before any request
// to an authorization server.
func (h *Handler) discover(ctx context.Context, ch challenge) (*discovered, error) {
	prm, err := h.fetchPRM(ctx, ch)
	if err != nil {
		return nil, err
	}
	d := &discovered{prm: prm}
	switch {
	case h.opts.OmitResource:
	case h.opts.Resource != "":
		d.resource = h.opts.Resource
	case prm != nil:
		d.resource = prm.Resource
	default:
		d.resource = canonicalResource(h.opts.ServerURL)
	}

	var issuers []string
	if prm != nil {
		issuers = prm.AuthorizationServers
		if len(issuers) == 0 {
			return nil, fmt.Errorf("server %s: protected resource metadata lists no authorization server", h.opts.ServerID)
		}
	} else {
		// 2025-03-26: the MCP server's origin is its authorization server.
		u, _ := url.Parse(h.opts.ServerURL)
		issuers = []string{u.Scheme + "://" + u.Host}
	}

	var (
		problems    []string
		withoutMeta string
	)
	for _, iss := range issuers {
		meta, err := h.fetchServerMeta(ctx, iss)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
			continue
		case meta == nil:
			if withoutMeta == "" {
				withoutMeta = iss
			}
			problems = append(problems, fmt.Sprintf("authorization server %s publishes no metadata", showURL(iss)))
			continue
		}
		d.issuer, d.meta = iss, meta
		break
	}
	if d.meta == nil {
		switch {
		case withoutMeta != "":
			// 2025-03-26 fallback: default endpoints at the server's origin.
			d.issuer = withoutMeta
		case h.opts.AuthorizationURL != "" && h.opts.TokenURL != "":
			d.issuer = issuers[0]
		default:
			return nil, fmt.Errorf("server %s: no usable authorization server: %s", h.opts.ServerID, strings.Join(problems, "; "))
		}
	}
	if d.meta != nil {
		d.authorizationURL = d.meta.AuthorizationEndpoint
		d.tokenURL = d.meta.TokenEndpoint
		d.registrationURL = d.meta.RegistrationEndpoint
	} else {
		base := strings.TrimSuffix(originOf(d.issuer), "/")
		d.authorizationURL = base + "/authorize"
		d.tokenURL = base + "/token"
		d.registrationURL = base + "/register"
	}
	// Configured endpoints were checked by New and are the user's choice;
	// discovered ones are held to the address rule.
	for _, e := range []struct {
		name       string
		url        *string
		configured string
	}{
		{"authorization_endpoint", &d.authorizationURL, h.opts.AuthorizationURL},
		{"token_endpoint", &d.tokenURL, h.opts.TokenURL},
		{"registration_endpoint", &d.registrationURL, h.opts.RegistrationURL},
	} {
		if e.configured != "" {
			*e.url = e.configured
			continue
		}
		if *e.url == "" && e.name == "registration_endpoint" {
			continue
		}
		if err := h.net.checkURL(ctx, *e.url); err != nil {
			return nil, fmt.Errorf("server %s: authorization server %s: %s: %w", h.opts.ServerID, showURL(d.issuer), e.name, err)
		}
	}
	return d, nil
}

// fetchPRM finds the RFC 9728 protected resource metadata: the challenge's
// resource_metadata URL, then the path-inserted and the root well-known
// locations. It returns (nil, nil) when the server publishes none, which
// makes it a 2025-03-26 server.
func (h *Handler) fetchPRM(ctx context.Context, ch challenge) (*oauthex.ProtectedResourceMetadata, error) {
	u, err := url.Parse(h.opts.ServerURL)
	if err != nil {
		return nil, fmt.Errorf("server %s: url: %w", h.opts.ServerID, err)
	}
	origin := u.Scheme + "://" + u.Host
	var candidates []string
	if ch.resourceMetadata != "" {
		candidates = append(candidates, ch.resourceMetadata)
	}
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")

	var failures []string
	allAbsent := true
	for _, c := range candidates {
		var prm oauthex.ProtectedResourceMetadata
		err := h.getJSON(ctx, c, &prm)
		if errors.Is(err, ErrPrivateAddress) {
			return nil, fmt.Errorf("server %s: protected resource metadata: %w", h.opts.ServerID, err)
		}
		if err != nil {
			if !absent(err) {
				allAbsent = false
			}
			failures = append(failures, err.Error())
			h.log.Debug("protected resource metadata", "server", h.opts.ServerID, "url", c, "err", err)
			continue
		}
		if prm.Resource == "" {
			allAbsent = false
			failures = append(failures, fmt.Sprintf("%s: no resource field", showURL(c)))
			continue
		}
		if !resourceMatches(prm.Resource, h.opts.ServerURL) {
			return nil, fmt.Errorf("server %s: %w: metadata at %s names %q, not %q", h.opts.ServerID, ErrResourceMismatch, showURL(c), showURL(prm.Resource), h.opts.ServerURL)
		}
		for i, as := range prm.AuthorizationServers {
			if err := h.net.checkURL(ctx, as); err != nil {
				return nil, fmt.Errorf("server %s: protected resource metadata at %s: authorization_servers[%d]: %w", h.opts.ServerID, showURL(c), i, err)
			}
		}
		return &prm, nil
	}
	if allAbsent {
		return nil, nil
	}
	return nil, fmt.Errorf("server %s: protected resource metadata: %s", h.opts.ServerID, strings.Join(failures, "; "))
}

// fetchServerMeta fetches authorization server metadata for issuer in the
// order the MCP specification gives: RFC 8414 path-inserted, OpenID Connect
// path-inserted, OpenID Connect path-appended (for an issuer without a path:
// RFC 8414, then OpenID Connect). It returns (nil, nil) when no location has
// a document, and an error when a document is unusable: an issuer that is not
// the one asked for (RFC 8414 section 3.3), or no PKCE S256.
func (h *Handler) fetchServerMeta(ctx context.Context, issuer string) (*serverMeta, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("authorization server %q: not a URL", showURL(issuer))
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	var candidates []string
	if p == "" {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}
	} else {
		candidates = []string{
			origin + "/.well-known/oauth-authorization-server" + p,
			origin + "/.well-known/openid-configuration" + p,
			origin + p + "/.well-known/openid-configuration",
		}
	}
	for _, c := range candidates {
		var raw json.RawMessage
		if err := h.getJSON(ctx, c, &raw); err != nil {
			if absent(err) {
				continue
			}
			return nil, fmt.Errorf("authorization server %s: %w", showURL(issuer), err)
		}
		var m serverMeta
		if err := json.Unmarshal(raw, &m.AuthServerMeta); err != nil {
			return nil, fmt.Errorf("authorization server %s: metadata at %s: %w", showURL(issuer), showURL(c), err)
		}
		var extra struct {
			Iss  *bool    `json:"authorization_response_iss_parameter_supported"`
			DPoP []string `json:"dpop_signing_alg_values_supported"`
		}
		_ = json.Unmarshal(raw, &extra)
		m.issAdvertised = extra.Iss != nil && *extra.Iss
		m.dpopAlgs = extra.DPoP
		if !sameIssuer(m.Issuer, issuer) {
			return nil, fmt.Errorf("authorization server %s: metadata at %s names issuer %q; not used", showURL(issuer), showURL(c), showURL(m.Issuer))
		}
		if !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
			return nil, fmt.Errorf("authorization server %s: metadata does not list PKCE S256 in code_challenge_methods_supported; refusing to authorize", showURL(issuer))
		}
		if m.AuthorizationEndpoint == "" || m.TokenEndpoint == "" {
			return nil, fmt.Errorf("authorization server %s: metadata at %s lacks authorization_endpoint or token_endpoint", showURL(issuer), showURL(c))
		}
		h.log.Debug("authorization server metadata", "server", h.opts.ServerID, "url", c)
		return &m, nil
	}
	return nil, nil
}

// sameIssuer compares a metadata issuer with the issuer identifier its
// well-known URL was built from: identical strings, except that a trailing
// slash on an otherwise empty path is the same well-known URL.
func sameIssuer(got, want string) bool {
	if got == want {
		return true
	}
	u, err := url.Parse(want)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	return strings.TrimSuffix(got, "/") == strings.TrimSuffix(want, "/")
}

// resourceMatches reports whether the resource named in protected resource
// metadata covers the server URL: same scheme and host, and a path that is
// the server's path or a parent of it.
func resourceMatches(resource, server string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(server)
	if err1 != nil || err2 != nil || r.Fragment != "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || hostPort(r) != hostPort(s) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(s.EscapedPath(), "/")
	return rp == "" || rp == sp || strings.HasPrefix(sp, rp+"/")
}

func hostPort(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(host, port)
}

// canonicalResource is the server URL without fragment, used as resource
// indicator when the server publishes no metadata.
func canonicalResource(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Fragment = ""
	u.RawFragment = ""
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return u.String()
}

func originOf(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Scheme + "://" + u.Host
}

// checkEndpoint accepts https URLs, and http URLs on loopback hosts.
func checkEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("invalid URL %q", showURL(s))
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		if u.Host == "" {
			return fmt.Errorf("URL %q has no host", showURL(s))
		}
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("URL %q is not https", showURL(s))
	default:
		return fmt.Errorf("URL %q: scheme must be https", showURL(s))
	}
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
