package auth

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ErrLoginRequired matches (with errors.Is) every error that means the user
// must log in again before the server can be used: no credentials, a refresh
// token the server no longer accepts, or a rejected registration while no
// [LoginPrompter] is configured. The runtime shows such a server as
// auth_required. Use errors.As with *LoginRequiredError for the reason.
var ErrLoginRequired = errors.New("login required")

// ErrResourceMismatch matches an error that says the server's protected
// resource metadata names another resource. No request went to any
// authorization server after it.
var ErrResourceMismatch = errors.New("protected resource metadata names another resource")

// ErrTransient matches (with errors.Is) an error that says the
// authorization server could not be used just now: it answered 5xx or 429,
// timed out, was unreachable, or sent something that is no OAuth answer at
// all (a captive portal's page, a proxy's 404). Every credential is kept; the
// handler asks the server again after a backoff. Use errors.As with
// *TransientError for the reason and the time of the next attempt.
var ErrTransient = errors.New("authorization server temporarily unusable")

// TransientError is a failure at the authorization server that says
// nothing about the credentials. It never contains a secret.
type TransientError struct {
	ServerID string
	// Reason says what failed, for status output: "refreshing the token:
	// token endpoint answered 503".
	Reason string
	// RetryAt is when the handler asks the server again; before that it
	// returns this error without a request.
	RetryAt time.Time
	// Err is the underlying failure.
	Err error
}

// Error says what failed, that the credentials are kept, and when the next
// attempt is.
func (e *TransientError) Error() string {
	return fmt.Sprintf("server %s: %s (credentials kept; next attempt at %s)", e.ServerID, e.Reason, e.RetryAt.Format(time.TimeOnly))
}

// Is reports whether target is ErrTransient.
func (e *TransientError) Is(target error) bool { return target == ErrTransient }

// Unwrap returns the underlying failure.
func (e *TransientError) Unwrap() error { return e.Err }

// Backoff after a transient failure: the server's Retry-After, else
// minBackoff doubling with each failure in a row, never more than
// maxBackoff.
const (
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

// ErrPrivateAddress matches an error that says the handler refused a URL or
// a connection on a loopback, link-local or private address for a server
// that is not on such a network itself (see Options.PrivateServer). Nothing
// was sent there.
var ErrPrivateAddress = errors.New("loopback, link-local or private address refused for a server on a public network")

// LoginRequiredError says why a login is needed.
type LoginRequiredError struct {
	ServerID string
	Reason   string
}

func (e *LoginRequiredError) Error() string {
	return fmt.Sprintf("server %s: login required: %s", e.ServerID, e.Reason)
}

// Is reports whether target is ErrLoginRequired.
func (e *LoginRequiredError) Is(target error) bool { return target == ErrLoginRequired }

// OAuthError is an error response from an authorization server endpoint
// (RFC 6749 section 5.2). It never holds the request, and of the response
// only the error code and description, or, for an answer that is no OAuth
// error, a short excerpt: all redacted, with the request's secrets masked.
type OAuthError struct {
	// Endpoint names the endpoint: "token", "registration" or "authorization".
	Endpoint    string
	StatusCode  int
	Code        string
	Description string
	// RetryAfter is the answer's Retry-After, zero when absent.
	RetryAfter time.Duration
	// Excerpt is the start of an answer that is no OAuth error response
	// (an HTML page), redacted, at most 256 bytes.
	Excerpt string
}

func (e *OAuthError) Error() string {
	msg := fmt.Sprintf("%s endpoint", e.Endpoint)
	if e.StatusCode != 0 {
		msg += fmt.Sprintf(" answered %d", e.StatusCode)
	}
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	if e.Excerpt != "" {
		msg += fmt.Sprintf(" (body %q)", e.Excerpt)
	}
	return msg
}

// rejected reports whether the answer is a definitive rejection of the
// credentials presented: a 400 or 401 whose OAuth error body names
// invalid_grant, invalid_client or unauthorized_client (RFC 6749 section
// 5.2). Anything else (a 5xx even with such a body, 429, a timeout, a page
// that is not an OAuth answer) says nothing about them.
func (e *OAuthError) rejected() bool {
	if e.StatusCode != http.StatusBadRequest && e.StatusCode != http.StatusUnauthorized {
		return false
	}
	switch e.Code {
	case "invalid_grant", "invalid_client", "unauthorized_client":
		return true
	}
	return false
}

// retryAfter reads a Retry-After header: delay seconds or an HTTP date
// (RFC 9110 section 10.2.3). It returns zero when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(maxBackoff/time.Second) {
			return maxBackoff
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
