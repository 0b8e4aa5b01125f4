package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ErrLoginDeclined matches the error of a login the user declined when a
// [Consenter] asked.
var ErrLoginDeclined = errors.New("login declined")

// ErrRevocationFailed matches the error of a logout whose revocation at the
// authorization server failed (the local credentials are gone anyway).
var ErrRevocationFailed = errors.New("token revocation failed")

// LogoutOptions configure [Handler.LogoutWith].
type LogoutOptions struct {
	// ForgetClient forgets the client registration too.
	ForgetClient bool
	// Revoke first asks the authorization server to revoke the refresh
	// token (else the access token) as RFC 7009 describes, where its
	// metadata advertises a revocation_endpoint.
	Revoke bool
}

// Logout forgets the token; forgetClient forgets the client registration too.
func (h *Handler) Logout(ctx context.Context, forgetClient bool) error {
	_, err := h.LogoutWith(ctx, LogoutOptions{ForgetClient: forgetClient})
	return err
}

// LogoutWith forgets the server's tokens, and its client registration with
// o.ForgetClient. With o.Revoke it first revokes them at the authorization
// server when that server advertises a revocation endpoint; revoked reports
// whether it did. The local credentials are forgotten even when the
// revocation fails; the error then matches ErrRevocationFailed and says why
// (never quoting a token). It waits for a login or refresh in progress.
func (h *Handler) LogoutWith(ctx context.Context, o LogoutOptions) (revoked bool, err error) {
	if err := h.load(ctx); err != nil {
		return false, err
	}
	select {
	case h.flow <- struct{}{}:
	case <-ctx.Done():
		return false, fmt.Errorf("server %s: waiting for authorization: %w", h.opts.ServerID, ctx.Err())
	}
	defer func() { <-h.flow }()
	rec := h.record()
	var revokeErr error
	if o.Revoke && rec.Token != nil {
		revoked, revokeErr = h.revoke(ctx, rec)
	}
	rec.Token, rec.Scopes = nil, nil
	if o.ForgetClient {
		rec.Client = nil
	}
	if rec.Client == nil {
		if err := h.opts.Store.Delete(ctx, h.key); err != nil {
			return revoked, fmt.Errorf("server %s: deleting credentials: %w", h.opts.ServerID, err)
		}
		h.mu.Lock()
		h.rec = &Record{}
		h.mu.Unlock()
		h.changed()
	} else if err := h.save(ctx, rec); err != nil {
		return revoked, err
	}
	h.recovered()
	h.setReason("logged out")
	return revoked, revokeErr
}

// revoke asks the authorization server of rec to revoke its refresh token
// (else its access token). It returns false, nil when the server advertises
// no revocation endpoint.
func (h *Handler) revoke(ctx context.Context, rec *Record) (bool, error) {
	fail := func(format string, args ...any) (bool, error) {
		return false, fmt.Errorf("server %s: %w: %s", h.opts.ServerID, ErrRevocationFailed, fmt.Sprintf(format, args...))
	}
	endpoint := rec.RevocationURL
	if endpoint == "" {
		if rec.Issuer == "" {
			return false, nil
		}
		// A record from before revocation endpoints were recorded.
		meta, err := h.fetchServerMeta(ctx, rec.Issuer)
		if err != nil {
			return fail("%v", err)
		}
		if meta == nil || meta.RevocationEndpoint == "" {
			return false, nil
		}
		endpoint = meta.RevocationEndpoint
	}
	if err := h.net.checkURL(ctx, endpoint); err != nil {
		return fail("revocation_endpoint: %v", err)
	}
	if rec.Client == nil {
		return fail("no client registration to authenticate with")
	}
	form := url.Values{"token": {rec.Token.RefreshToken}, "token_type_hint": {"refresh_token"}}
	if rec.Token.RefreshToken == "" {
		form = url.Values{"token": {rec.Token.AccessToken}, "token_type_hint": {"access_token"}}
	}
	basic, err := h.authenticate(rec.Client, form)
	if err != nil {
		return fail("%v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fail("revocation endpoint %s: %v", showURL(endpoint), err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic != "" {
		req.Header.Set("Authorization", "Basic "+basic)
	}
	resp, err := h.noRedirect.Do(req)
	if err != nil {
		return fail("%s", redactURLError(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponseBytes))
	if resp.StatusCode != http.StatusOK {
		return fail("%v", oauthErrorFrom("revocation", resp.StatusCode, body, formSecrets(form, rec.Client, basic)...))
	}
	h.log.Debug("token revoked", "server", h.opts.ServerID)
	return true, nil
}
