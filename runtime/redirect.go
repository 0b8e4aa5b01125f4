package runtime

import (
	"net/url"

	"github.com/mcp-host/mcp-host/redact"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// redirectCheck judges a redirect hop of e's HTTP or SSE server as its
// URL was judged before the connect: the managed policy's Check on the
// same definition with the hop's URL. nil when no policy checks e.
func redirectCheck(e config.ServerEntry, cfg config.ServerConfig) func(*url.URL) error {
	if e.Check == nil || cfg.TransportName() == "stdio" {
		return nil
	}
	return func(u *url.URL) error {
		hop := cfg
		hop.URL = u.String()
		if b := e.Check(&hop); b != nil {
			// The policy's own reason quotes the definition's URL; the
			// hop is what it refused.
			c := *b
			c.Reason = "it redirected to " + redact.URL(hop.URL) + ", which the rule refuses"
			return &c
		}
		return nil
	}
}
