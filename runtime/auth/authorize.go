package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Authorize implements auth.OAuthHandler. It is called with a request the
// server answered 401 or 403. Concurrent calls are serialized: the ones that
// waited use the result of the authorization that ran meanwhile. A 401
// refreshes the token only if the rejected token is the current one; a 403
// insufficient_scope asks for the union of granted and challenged scopes, at
// most MaxStepUps times for one set of scopes.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) (err error) {
	defer h.recoverPanic("authorization", &err)
	ch := parseChallenge(resp.Header)
	if ch.dpop {
		h.dpopChallenged.Store(true)
	}
	status := resp.StatusCode
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()

	stepUp := false
	switch status {
	case http.StatusUnauthorized:
		h.noteChallenge(ch)
	case http.StatusForbidden:
		if ch.err != "insufficient_scope" {
			return fmt.Errorf("server %s: request forbidden (403)", h.opts.ServerID)
		}
		stepUp = true
	default:
		return fmt.Errorf("server %s: unexpected status %d for authorization", h.opts.ServerID, status)
	}
	rejected := bearerToken(req)
	return h.serialize(ctx, func() error {
		cur := h.record()
		if cur.Token != nil && cur.Token.AccessToken != rejected && !h.expired(cur.Token) {
			if !stepUp || covers(cur.Scopes, strings.Fields(ch.scope)) {
				return nil // a flow that ran meanwhile produced a newer token
			}
		}
		return h.authorize(ctx, ch, rejected, stepUp)
	})
}

// authorize runs discovery, then a refresh or a full login with the
// configured prompter. Called holding h.flow.
func (h *Handler) authorize(ctx context.Context, ch challenge, rejected string, stepUp bool) error {
	return h.authorizeWith(ctx, ch, rejected, stepUp, h.opts.Prompter)
}

// authorizeWith is authorize with prompter p.
func (h *Handler) authorizeWith(ctx context.Context, ch challenge, rejected string, stepUp bool, prompter LoginPrompter) error {
	d, err := h.discover(ctx, ch)
	if err != nil {
		if errors.Is(err, ErrResourceMismatch) {
			h.setReason("resource mismatch")
		}
		return err
	}
	rec := h.record()
	sameIssuer := rec.Issuer == d.issuer
	if !stepUp && sameIssuer && rec.Token != nil && rec.Token.AccessToken == rejected && rec.Token.RefreshToken != "" && rec.Client != nil {
		err := h.refresh(ctx, rejected, d.tokenURL)
		if err == nil {
			if t := h.record().Token; t != nil && t.AccessToken != rejected {
				return nil
			}
		} else if !errors.Is(err, ErrLoginRequired) {
			return err
		}
		rec = h.record()
	}

	var prior []string
	if sameIssuer {
		prior = rec.Scopes
	}
	scopes := h.selectScopes(d, ch, prior)
	if stepUp {
		k := strings.Join(scopes, " ")
		h.mu.Lock()
		n := h.stepUps[k]
		h.stepUps[k] = n + 1
		h.mu.Unlock()
		if n >= h.opts.MaxStepUps {
			return fmt.Errorf("server %s: still forbidden after %d authorizations for scope %q; giving up", h.opts.ServerID, n, k)
		}
	}
	bound, err := h.dpopWanted(d)
	if err != nil {
		return err // before anyone is asked to log in
	}
	if h.machineGrant() {
		return h.grantToken(ctx, d, scopes)
	}
	if prompter == nil {
		h.mu.Lock()
		reason := h.reason
		h.mu.Unlock()
		if reason == "" && rec.Token != nil && rec.Token.AccessToken == rejected && rec.Token.RefreshToken == "" {
			return h.loginRequired("the server no longer accepts the token, and there is no refresh token")
		}
		if reason == "" {
			reason = "not logged in"
		}
		return &LoginRequiredError{ServerID: h.opts.ServerID, Reason: reason}
	}

	return h.interactiveLogin(ctx, d, prompter, rec, scopes, bound)
}

// selectScopes picks the scopes to request: the challenge's, else the
// configured ones, else the protected resource's scopes_supported, else none;
// joined with prior (the scopes granted before, for step-up and
// re-authorization); plus offline_access when the authorization server
// advertises it.
func (h *Handler) selectScopes(d *discovered, ch challenge, prior []string) []string {
	var base []string
	switch {
	case ch.scope != "":
		base = strings.Fields(ch.scope)
	case h.opts.Scope != "":
		base = strings.Fields(h.opts.Scope)
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		base = d.prm.ScopesSupported
	}
	var out []string
	for _, s := range append(slices.Clone(prior), base...) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) > 0 && d.meta != nil && slices.Contains(d.meta.ScopesSupported, "offline_access") && !slices.Contains(out, "offline_access") {
		out = append(out, "offline_access")
	}
	return out
}

func covers(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func bearerToken(req *http.Request) string {
	if req == nil {
		return ""
	}
	v := req.Header.Get("Authorization")
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return v[7:]
	}
	return ""
}

func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func addQuery(endpoint string, q url.Values) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	existing := u.Query()
	for k, vs := range q {
		existing[k] = vs
	}
	u.RawQuery = existing.Encode()
	return u.String(), nil
}
