package auth

import (
	"net/url"
	"strings"

	"github.com/mcp-host/mcp-host/redact"
)

// What servers send is quoted in errors only through these: redacted (known
// secrets of the request masked too), one line without control or bidi
// characters, and short.

// Bounds of quoted text.
const (
	maxShownCode = 64
	maxShownText = 200
	maxShownURL  = 256
)

// clean renders untrusted text for an error message, with the request's
// secrets masked.
func clean(s string, n int, secrets ...string) string {
	return redact.Excerpt([]byte(s), n, secrets...)
}

// showURL renders a URL that came from a server (or a challenge) for an
// error message.
func showURL(s string) string { return clean(s, maxShownURL) }

// formSecrets returns the secret values of a request form and the client's
// secret, for masking in what the server answers.
func formSecrets(form url.Values, cl *Client, basic string) []string {
	var out []string
	for k, vs := range form {
		if redact.IsSecretKey(k) || strings.HasSuffix(k, "_token") || k == "assertion" {
			out = append(out, vs...)
		}
	}
	if cl != nil && cl.ClientSecret != "" {
		out = append(out, cl.ClientSecret, url.QueryEscape(cl.ClientSecret))
	}
	if basic != "" {
		out = append(out, basic)
	}
	return out
}

// registerSecrets tells the redactor the secrets of rec, so that they are
// masked wherever they turn up in the process: an error that quotes a
// request, a log line, a status field.
func registerSecrets(rec *Record) {
	if rec == nil {
		return
	}
	if t := rec.Token; t != nil {
		redact.RegisterShortLived(t.AccessToken, t.RefreshToken)
	}
	if c := rec.Client; c != nil {
		redact.Register(c.ClientSecret, c.RegistrationAccessToken)
	}
}
