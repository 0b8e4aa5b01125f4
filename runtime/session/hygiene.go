package session

import (
	"net/url"

	"github.com/mcp-host/mcp-host/redact"
)

// clean is how every error leaves the session: secrets the redactor knows
// masked, each URL's user info and query values masked (Go's *url.Error
// quotes the whole URL, and a query carries expanded ${VAR} values under
// any name), the MCP SDK's layers around a failed request folded (tidy),
// and the message bounded. errors.Is and errors.As still see the chain.
func clean(err error) error { return redact.Error(tidy(err)) }

// registerSecrets tells the redactor the secrets in an HTTP server's
// options, in case whoever expanded them did not: the configured header
// values and the URL's password.
func registerSecrets(o *Options) {
	for _, v := range o.Headers {
		redact.Register(v)
	}
	if u, err := url.Parse(o.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			redact.Register(pw)
		}
	}
}
