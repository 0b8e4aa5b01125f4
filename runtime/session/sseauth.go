package session

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// authRoundTripper gives the legacy SSE transport what the SDK's Streamable
// HTTP transport does with an OAuth handler, which the SDK's SSE client
// lacks: the handler's token on every request (the event stream's GET and
// each POST), and on 401 or 403 the handler's Authorize (a refresh, a step
// up, or an auth-required error the runtime shows as auth_required) and
// one more try. It sits outside the handler's own transport wrapper, so a
// DPoP handler turns the token into a DPoP proof as for Streamable HTTP.
type authRoundTripper struct {
	h    auth.OAuthHandler
	next http.RoundTripper
}

func (a *authRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	r, err := a.authorized(req)
	if err != nil {
		return nil, err
	}
	resp, err := a.next.RoundTrip(r)
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if err := a.h.Authorize(req.Context(), r, resp); err != nil {
		return nil, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return nil, errors.New("authorized, but the request cannot be sent again")
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	if r, err = a.authorized(retry); err != nil {
		return nil, err
	}
	return a.next.RoundTrip(r)
}

// authorized returns req with the handler's current token, unless the
// request carries an Authorization header already. As in the SDK, a
// refresh rejected with invalid_grant sends no token: the 401 that follows
// asks Authorize.
func (a *authRoundTripper) authorized(req *http.Request) (*http.Request, error) {
	if req.Header.Get("Authorization") != "" {
		return req, nil
	}
	ts, err := a.h.TokenSource(req.Context())
	if err != nil {
		return nil, err
	}
	if ts == nil {
		return req, nil
	}
	tok, err := ts.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			return req, nil
		}
		return nil, fmt.Errorf("getting a token: %w", err)
	}
	if tok == nil || tok.AccessToken == "" {
		return req, nil
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return r, nil
}
