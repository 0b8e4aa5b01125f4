package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"golang.org/x/oauth2"
)

// refreshTimeout bounds a refresh started from TokenSource, which has no
// request context of its own.
const refreshTimeout = 30 * time.Second

// expiring reports whether t is within the refresh skew of its expiry. The
// skew is at most a third of the token's lifetime, so that a token living
// seconds is not refreshed on every request.
func (h *Handler) expiring(t *Token) bool {
	if t.ExpiresAt.IsZero() {
		return false
	}
	skew := h.opts.RefreshSkew
	if !t.IssuedAt.IsZero() {
		if third := t.ExpiresAt.Sub(t.IssuedAt) / 3; third < skew {
			skew = third
		}
	}
	return !h.now().Add(skew).Before(t.ExpiresAt)
}

func (h *Handler) expired(t *Token) bool {
	return !t.ExpiresAt.IsZero() && !h.now().Before(t.ExpiresAt)
}

func oauthToken(t *Token) *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: "Bearer", Expiry: t.ExpiresAt}
}

// token returns the token to send. The expiry is judged by this machine's
// wall clock, which can be wrong (set back, or jumped forward after a
// suspend): it decides when to refresh, while the resource server decides
// whether a token is dead. A 401 for the token sent refreshes it (or asks
// for a login) in Authorize, whatever the expiry says; a token the clock
// calls expired that cannot be refreshed (no refresh token) is still sent,
// so a jump forward does not turn a live token into a login.
func (h *Handler) token(ctx context.Context) (*oauth2.Token, error) {
	rec := h.record()
	t := rec.Token
	if t == nil {
		return nil, nil
	}
	if !h.expiring(t) || t.RefreshToken == "" {
		return oauthToken(t), nil
	}
	current := func() (*oauth2.Token, error) {
		if h.expired(t) {
			return nil, nil // the server answers 401 and Authorize takes over
		}
		return oauthToken(t), nil
	}
	// Refresh unless an authorization or refresh is already running; then
	// use what there is and let a 401 wait for it.
	select {
	case h.flow <- struct{}{}:
	default:
		return current()
	}
	defer func() { <-h.flow }()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refreshTimeout)
	defer cancel()
	err := h.refresh(rctx, t.AccessToken, "")
	switch {
	case err == nil:
		if nt := h.record().Token; nt != nil {
			return oauthToken(nt), nil
		}
		return nil, nil
	case errors.Is(err, ErrLoginRequired):
		return nil, nil
	default:
		h.log.Debug("token refresh failed", "server", h.opts.ServerID, "err", err)
		if h.expired(t) {
			return nil, err
		}
		return oauthToken(t), nil
	}
}

// refresh spends the refresh token of the token whose access token is
// rejected. It must be called holding h.flow. When the store is shared
// between processes it runs under the store's lock and re-reads the record
// first, so that a refresh done by another process is used, not repeated.
// tokenURL, if set, replaces the recorded token endpoint.
func (h *Handler) refresh(ctx context.Context, rejected, tokenURL string) error {
	if l, ok := h.opts.Store.(Locker); ok {
		unlock, err := l.Lock(ctx, h.key)
		if err != nil {
			return fmt.Errorf("server %s: locking credentials: %w", h.opts.ServerID, err)
		}
		defer unlock()
		rec, err := h.readStore(ctx)
		if err != nil {
			return err
		}
		h.mu.Lock()
		h.rec = rec
		h.mu.Unlock()
	}
	rec := h.record()
	if rec.Token == nil {
		return h.loginRequired("not logged in")
	}
	if rec.Token.AccessToken != rejected && !h.expiring(rec.Token) {
		return nil // someone else already refreshed
	}
	if rec.Token.RefreshToken == "" || rec.Client == nil {
		return h.loginRequired("token expired and no refresh token")
	}
	if tokenURL == "" {
		tokenURL = rec.TokenURL
	}
	if tokenURL == "" {
		return h.loginRequired("no token endpoint recorded")
	}
	if err := h.backingOff(); err != nil {
		return err
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {rec.Token.RefreshToken},
	}
	if rec.Resource != "" {
		form.Set("resource", rec.Resource)
	}
	var dp *Record
	if isDPoP(rec.Token) {
		dp = rec // a bound token is refreshed with proofs of the same key
	}
	tr, err := h.tokenRequest(ctx, tokenURL, rec.Client, form, dp)
	if err != nil {
		var oe *OAuthError
		if !errors.As(err, &oe) || !oe.rejected() {
			return h.transient(ctx, "refreshing the token", err)
		}
		// The server rejected the refresh: the token is gone. A rejected
		// dynamic registration goes too.
		rec.Token = nil
		if oe.Code == "invalid_client" && rec.Client.Kind == ClientDynamic {
			rec.Client = nil
		}
		if serr := h.save(ctx, rec); serr != nil {
			h.log.Debug("saving after refresh failure", "server", h.opts.ServerID, "err", serr)
		}
		return h.loginRequired("refresh failed: " + oe.Error())
	}
	if tr.token.RefreshToken == "" {
		tr.token.RefreshToken = rec.Token.RefreshToken
	}
	rec.Token = &tr.token
	if tr.scopes != nil {
		rec.Scopes = tr.scopes
	}
	rec.TokenURL = tokenURL
	rec.Client.Confirmed = true
	h.recovered()
	if err := h.save(ctx, rec); err != nil {
		// The server may have rotated the refresh token: the tokens on
		// disk may be dead now, and dropping the new ones too would cost
		// a login. They serve this process; the next start may need one.
		h.mu.Lock()
		h.rec = rec.clone()
		h.mu.Unlock()
		h.log.Warn("the refreshed tokens were not saved; they are kept for this process only (the next start may ask for a login)",
			"server", h.opts.ServerID, "error", err)
		h.changed()
		return nil
	}
	h.setReason("")
	h.log.Debug("token refreshed", "server", h.opts.ServerID)
	return nil
}
