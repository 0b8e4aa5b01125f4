package auth

import (
	"context"
	"errors"
)

// Credentials survive transient failure: only a definitive rejection
// ([OAuthError.rejected]) changes them. Any other failure at a token
// endpoint becomes a [TransientError], and the handler sends that endpoint
// nothing more until the backoff has passed; the next request or reconnect
// after it tries again.

// transient records a failure of what (for example "refreshing the token")
// that says nothing about the credentials and returns it as a
// *TransientError with the time of the next attempt: the answer's
// Retry-After, else minBackoff doubling with each failure in a row, capped
// at maxBackoff. A caller that gave up (ctx canceled) starts no backoff.
func (h *Handler) transient(ctx context.Context, what string, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return err
	}
	h.mu.Lock()
	defer h.changed()
	defer h.mu.Unlock()
	h.failures++
	delay := maxBackoff
	if h.failures <= 6 {
		delay = min(minBackoff<<(h.failures-1), maxBackoff)
	}
	var oe *OAuthError
	if errors.As(err, &oe) && oe.RetryAfter > 0 {
		delay = min(oe.RetryAfter, maxBackoff)
	}
	te := &TransientError{ServerID: h.opts.ServerID, Reason: what + ": " + errorText(err), RetryAt: h.now().Add(delay), Err: err}
	h.trouble = te
	h.log.Debug("authorization server failure; credentials kept", "server", h.opts.ServerID, "reason", te.Reason, "retry_in", delay)
	return te
}

// backingOff returns the last transient failure while its backoff runs,
// else nil.
func (h *Handler) backingOff() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.trouble != nil && h.now().Before(h.trouble.RetryAt) {
		return h.trouble
	}
	return nil
}

// recovered ends a backoff after the authorization server answered.
func (h *Handler) recovered() {
	h.mu.Lock()
	h.failures, h.trouble = 0, nil
	h.mu.Unlock()
}

// errorText is err's message without the "server <id>: " prefix that the
// TransientError adds itself.
func errorText(err error) string {
	var oe *OAuthError
	if errors.As(err, &oe) {
		return oe.Error()
	}
	return err.Error()
}
