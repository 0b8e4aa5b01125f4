package auth

import (
	"errors"
	"fmt"
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
// (RFC 6749 section 5.2). It never holds the request or response body.
type OAuthError struct {
	// Endpoint names the endpoint: "token", "registration" or "authorization".
	Endpoint    string
	StatusCode  int
	Code        string
	Description string
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
		msg += ": " + truncate(e.Description, 200)
	}
	return msg
}

// temporary reports whether the error is worth retrying later with the same
// credentials: the server failed, not the credentials.
func (e *OAuthError) temporary() bool {
	return e.Code == "" && (e.StatusCode == 0 || e.StatusCode >= 500 || e.StatusCode == 429)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
