package auth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcp-host/mcp-host/redact"
	"golang.org/x/oauth2"
)

// A stored dynamic registration outlives what the authorization server
// remembers: a server that keeps clients in memory forgets them when it
// restarts, others clean up unused ones. A login with a forgotten client_id
// ends on the server's error page, which never redirects, so the login
// would wait out its whole timeout. Before the browser opens, a reused
// dynamic registration is checked, where the server offers registration
// (so that a new one can be made):
//
//   - with its RFC 7592 client configuration endpoint, when registration
//     issued one: 200 says known; 401 (the registration access token is
//     invalid, which is what a server answers for a client it lost) or
//     404 says forgotten;
//   - otherwise, or when that answer says neither, by asking the
//     authorization endpoint the question the browser would: the same
//     request (another state and PKCE challenge), not followed. An answer
//     of 400 or 401 is the error page RFC 6749 section 4.1.2.1 prescribes
//     for an unknown client; a redirect naming invalid_client or
//     unauthorized_client says the same. Anything else (a login page, a
//     redirect to one, a server error) counts as known.
//
// A forgotten registration is dropped and the login registers afresh.

// registrationGone reports whether the authorization server of d has
// forgotten the dynamic registration cl. authQuery is the authorization
// request the login is about to send.
func (h *Handler) registrationGone(ctx context.Context, d *discovered, cl *Client, authQuery url.Values) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if cl.RegistrationClientURI != "" && cl.RegistrationAccessToken != "" {
		switch known, definite := h.readRegistration(ctx, cl); {
		case definite && known:
			return false
		case definite:
			return true
		}
	}
	return h.authorizationRefuses(ctx, d, cl, authQuery)
}

// readRegistration reads cl's registration at its client configuration
// endpoint (RFC 7592 section 2.1). definite is false when the answer says
// nothing either way. A registration access token the server rotated is
// stored.
func (h *Handler) readRegistration(ctx context.Context, cl *Client) (known, definite bool) {
	endpoint := cl.RegistrationClientURI
	if err := h.net.checkURL(ctx, endpoint); err != nil {
		h.log.Debug("registration read refused", "server", h.opts.ServerID, "err", err)
		return false, false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return false, false
	}
	req.Header.Set("Authorization", "Bearer "+cl.RegistrationAccessToken)
	req.Header.Set("Accept", "application/json")
	resp, err := h.noRedirect.Do(req)
	if err != nil {
		h.log.Debug("registration read", "server", h.opts.ServerID, "err", redactURLError(err))
		return false, false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxRegistrationResponseBytes))
	h.log.Debug("registration read", "server", h.opts.ServerID, "status", resp.StatusCode)
	switch resp.StatusCode {
	case http.StatusOK:
		var v struct {
			ClientID string `json:"client_id"`
			Token    string `json:"registration_access_token"`
		}
		if json.Unmarshal(body, &v) != nil || v.ClientID != cl.ClientID {
			return false, false // not the registration's JSON: a portal, a proxy
		}
		if v.Token != "" && v.Token != cl.RegistrationAccessToken {
			redact.Register(v.Token)
			h.rotateRegistrationToken(ctx, cl, v.Token)
		}
		return true, true
	case http.StatusUnauthorized, http.StatusNotFound:
		return false, true
	}
	return false, false
}

// rotateRegistrationToken stores the registration access token the server
// replaced cl's with (RFC 7592 section 3).
func (h *Handler) rotateRegistrationToken(ctx context.Context, cl *Client, token string) {
	cl.RegistrationAccessToken = token
	rec := h.record()
	if rec.Client == nil || rec.Client.ClientID != cl.ClientID || rec.Client.Issuer != cl.Issuer {
		return
	}
	rec.Client.RegistrationAccessToken = token
	if err := h.save(ctx, rec); err != nil {
		h.log.Debug("saving a rotated registration access token", "server", h.opts.ServerID, "err", err)
	}
}

// authorizationRefuses sends authQuery, with a fresh state and PKCE
// challenge, to the authorization endpoint and reports whether the answer
// is the server's refusal of the client: a 400 or 401 page, or a redirect
// naming invalid_client or unauthorized_client.
func (h *Handler) authorizationRefuses(ctx context.Context, d *discovered, cl *Client, authQuery url.Values) bool {
	q := cloneValues(authQuery)
	q.Set("state", randomString())
	q.Set("code_challenge", oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier()))
	u, err := addQuery(d.authorizationURL, q)
	if err != nil {
		return false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "text/html")
	resp, err := h.noRedirect.Do(req)
	if err != nil {
		h.log.Debug("authorization endpoint check", "server", h.opts.ServerID, "err", redactURLError(err))
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	h.log.Debug("authorization endpoint check", "server", h.opts.ServerID, "client", cl.ClientID, "status", resp.StatusCode)
	switch {
	case resp.StatusCode == http.StatusBadRequest, resp.StatusCode == http.StatusUnauthorized:
		return true
	case resp.StatusCode/100 == 3:
		loc, err := resp.Location()
		if err != nil {
			return false
		}
		return clientRefusal(loc.Query().Get("error"))
	}
	return false
}

// clientRefusal reports whether an authorization error code says the
// server does not accept the client.
func clientRefusal(code string) bool {
	return code == "invalid_client" || code == "unauthorized_client"
}

// sameOrigin reports whether URLs a and b have the same scheme, host and
// port.
func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Scheme, ub.Scheme) && hostPort(ua) == hostPort(ub)
}
