package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// interactiveLogin runs the authorization code flow with prompter: consent
// first (before any registration), then one browser round, retried once with
// a fresh dynamic registration when the authorization server no longer knows
// the stored one (invalid_client at the token endpoint, invalid_client or
// unauthorized_client in the redirect; codeLogin checks before the browser
// opens, see registrationGone). A dynamic registration that never produced a
// token is dropped when the login fails, so the next login registers afresh.
// rec is the current record. Called holding h.flow.
func (h *Handler) interactiveLogin(ctx context.Context, d *discovered, prompter LoginPrompter, rec *Record, scopes []string, bound bool) error {
	if c, ok := prompter.(Consenter); ok {
		yes, err := c.Consent(ctx, &LoginRequest{ServerID: h.opts.ServerID, Issuer: d.issuer})
		if err != nil {
			return fmt.Errorf("server %s: asking for consent: %w", h.opts.ServerID, err)
		}
		if !yes {
			return fmt.Errorf("server %s: %w", h.opts.ServerID, ErrLoginDeclined)
		}
	}
	if c, ok := prompter.(io.Closer); ok {
		defer c.Close() // the callback listener goes, however the login ends
	}
	stored, preferred := rec.Client, ""
	if stored != nil {
		preferred = stored.RedirectURI
	}
	for attempt := 0; ; attempt++ {
		nrec, cl, err := h.codeLogin(ctx, d, prompter, stored, preferred, scopes, bound)
		if err == nil {
			if err := h.save(ctx, nrec); err != nil {
				return err
			}
			h.setReason("")
			return nil
		}
		if cl == nil || cl.Kind != ClientDynamic {
			return err
		}
		// The token endpoint's invalid_client, or the authorization
		// server's refusal of the client in the redirect.
		var oe *OAuthError
		rejected := errors.As(err, &oe) && ((oe.Endpoint == "token" && oe.rejected() && oe.Code == "invalid_client") ||
			(oe.Endpoint == "authorization" && clientRefusal(oe.Code)))
		used := cl.Confirmed || (cl == stored && rec.Token != nil)
		if rejected || !used {
			h.dropRegistration(ctx, cl)
		}
		if !rejected {
			return err
		}
		if cl == stored && attempt == 0 {
			h.log.Debug("stored registration rejected; registering afresh", "server", h.opts.ServerID, "issuer", d.issuer)
			stored = nil
			continue
		}
		h.setReason("registration rejected")
		return fmt.Errorf("server %s: authorization server %s rejected the client registration (it is forgotten; the next login registers again): %w", h.opts.ServerID, d.issuer, err)
	}
}

// codeLogin is one round of the authorization code flow: redirect URI,
// client (registering one if needed), browser, callback, code exchange. It
// returns the record to save, and the client it used (nil when it failed
// before one was chosen).
func (h *Handler) codeLogin(ctx context.Context, d *discovered, prompter LoginPrompter, stored *Client, preferred string, scopes []string, bound bool) (*Record, *Client, error) {
	redirectURI, err := prompter.RedirectURI(ctx, preferred)
	if err != nil {
		return nil, nil, fmt.Errorf("server %s: login: %w", h.opts.ServerID, err)
	}
	cl, err := h.client(ctx, d, stored, redirectURI)
	if err != nil {
		return nil, nil, err
	}
	query := func(cl *Client) url.Values {
		q := url.Values{
			"response_type":         {"code"},
			"client_id":             {cl.ClientID},
			"redirect_uri":          {redirectURI},
			"code_challenge_method": {"S256"},
		}
		if len(scopes) > 0 {
			q.Set("scope", strings.Join(scopes, " "))
		}
		if d.resource != "" {
			q.Set("resource", d.resource)
		}
		return q
	}
	if cl == stored && cl.Kind == ClientDynamic && d.registrationURL != "" && h.registrationGone(ctx, d, cl, query(cl)) {
		h.log.Debug("the authorization server forgot the stored registration; registering afresh", "server", h.opts.ServerID, "issuer", d.issuer)
		h.dropRegistration(ctx, cl)
		if cl, err = h.register(ctx, d, redirectURI); err != nil {
			return nil, nil, err
		}
	}

	verifier := oauth2.GenerateVerifier()
	state := randomString()
	q := query(cl)
	q.Set("state", state)
	q.Set("code_challenge", oauth2.S256ChallengeFromVerifier(verifier))
	authURL, err := addQuery(d.authorizationURL, q)
	if err != nil {
		return nil, cl, fmt.Errorf("server %s: authorization_endpoint: %w", h.opts.ServerID, err)
	}
	if err := CheckBrowserURL(authURL); err != nil {
		return nil, cl, fmt.Errorf("server %s: authorization_endpoint: %w", h.opts.ServerID, err)
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
		return nil, cl, fmt.Errorf("server %s: login: %w", h.opts.ServerID, err)
	}
	if err := h.checkCallback(d, res, state); err != nil {
		return nil, cl, err
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
		return nil, cl, fmt.Errorf("server %s: exchanging authorization code: %w", h.opts.ServerID, err)
	}
	granted := tr.scopes
	if granted == nil {
		granted = scopes
	}
	used := *cl
	used.Confirmed = true
	nrec := &Record{
		Issuer:   d.issuer,
		Resource: d.resource,
		TokenURL: d.tokenURL,
		Token:    &tr.token,
		Client:   &used,
		Scopes:   granted,
		DPoPKey:  keys.DPoPKey,
	}
	if d.meta != nil {
		nrec.RevocationURL = d.meta.RevocationEndpoint
	}
	return nrec, cl, nil
}

// dropRegistration forgets the dynamic registration cl if it is the stored
// one.
func (h *Handler) dropRegistration(ctx context.Context, cl *Client) {
	rec := h.record()
	if rec.Client == nil || rec.Client.ClientID != cl.ClientID || rec.Client.Issuer != cl.Issuer {
		return
	}
	rec.Client = nil
	if err := h.save(ctx, rec); err != nil {
		h.log.Debug("dropping a registration", "server", h.opts.ServerID, "err", err)
	}
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
		return fmt.Errorf("server %s: authorization response comes from issuer %q, not %q (RFC 9207); ignoring it", h.opts.ServerID, showURL(res.Iss), showURL(issuer))
	case res.Iss == "" && d.meta != nil && d.meta.issAdvertised:
		return fmt.Errorf("server %s: authorization response lacks the iss parameter that %s promises (RFC 9207); ignoring it", h.opts.ServerID, issuer)
	}
	if res.Error != "" {
		return fmt.Errorf("server %s: %w", h.opts.ServerID, &OAuthError{Endpoint: "authorization", Code: clean(res.Error, maxShownCode), Description: clean(res.ErrorDescription, maxShownText)})
	}
	if res.Code == "" {
		return fmt.Errorf("server %s: authorization response has no code", h.opts.ServerID)
	}
	return nil
}
