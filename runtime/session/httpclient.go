package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/redact"
)

// sharedTransport is the HTTP transport of every session without its own
// client. Go's default keeps only two idle connections per host, which
// serializes concurrent calls to one server behind new TCP handshakes.
var sharedTransport = sync.OnceValue(func() *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
})

// headerRoundTripper adds static headers to every request and remembers the
// status of the first POST, which tells whether an "http" server is really a
// legacy SSE server.
type headerRoundTripper struct {
	base    http.RoundTripper
	headers map[string]string

	mu        sync.Mutex
	firstPost int // status of the first POST answered, but for 401/403; 0 before
}

func (h *headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			if req.Header.Get(k) == "" {
				req.Header.Set(k, v)
			}
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		// A 401 or 403 is retried once authorized: its answer counts.
		h.mu.Lock()
		if h.firstPost == 0 {
			h.firstPost = resp.StatusCode
		}
		h.mu.Unlock()
	}
	return resp, err
}

// legacyServer reports whether the first POST was refused in the way a
// 2024-11-05 HTTP+SSE server refuses it.
func (h *headerRoundTripper) legacyServer() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.firstPost == http.StatusNotFound || h.firstPost == http.StatusMethodNotAllowed
}

// TransportWrapper is implemented by an OAuth handler that has to see each
// request it authorizes, such as a DPoP handler, which signs a proof for
// every request and presents the token under its own scheme. The session
// puts the wrapper between its static headers and the network.
type TransportWrapper interface {
	WrapTransport(http.RoundTripper) http.RoundTripper
}

// httpClientFor returns the client for a Streamable HTTP connection
// attempt, wrapping the configured one (or the shared transport) with the
// OAuth handler's transport, if it has one, the static headers and the
// session's guard.
func httpClientFor(o *Options) (*http.Client, *guardRoundTripper) {
	return clientFor(o, "a request", false)
}

// sseClientFor returns the client for a legacy SSE connection, whose POSTs
// go where the server's endpoint event says.
func sseClientFor(o *Options) (*http.Client, *guardRoundTripper) {
	return clientFor(o, "the SSE endpoint event", true)
}

// clientFor builds a client; crossOrigin says, for the guard's error, what
// could name another origin.
func clientFor(o *Options, crossOrigin string, legacySSE bool) (*http.Client, *guardRoundTripper) {
	registerSecrets(o)
	var base http.RoundTripper = sharedTransport()
	var c http.Client
	if o.HTTPClient != nil {
		c = *o.HTTPClient
		if c.Transport != nil {
			base = c.Transport
		}
	}
	pool := base // the transport that holds the connections
	if o.Logger != nil && o.Logger.Enabled(context.Background(), slog.LevelDebug) {
		base = &debugRoundTripper{base: base, log: o.Logger, id: o.ID}
	}
	if w, ok := o.OAuthHandler.(TransportWrapper); ok {
		base = w.WrapTransport(base)
	}
	h := &headerRoundTripper{base: base, headers: o.Headers}
	var inner http.RoundTripper = h
	if legacySSE && o.OAuthHandler != nil {
		// The SDK's SSE client knows no OAuth handler: the session applies it.
		inner = &authRoundTripper{h: o.OAuthHandler, next: h}
	}
	own, _ := url.Parse(o.URL)
	g := &guardRoundTripper{
		id: o.ID, origin: own, crossOrigin: crossOrigin, legacySSE: legacySSE,
		max: o.maxResponseBytes(), log: o.logger(), next: inner, headers: h,
		replies: make(chan struct{}, maxPendingReplies),
		pace:    newPacer(o.ID, o.logger()),
	}
	if ci, ok := pool.(interface{ CloseIdleConnections() }); ok {
		g.closeIdle = ci.CloseIdleConnections
	}
	c.Transport = g
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from := via[0].URL; !sameOrigin(req.URL, from) {
			return fmt.Errorf("server %q redirected to another origin (%s://%s); not following it, so that its token and headers stay with %s://%s", o.ID, req.URL.Scheme, req.URL.Host, from.Scheme, from.Host)
		}
		if o.RedirectCheck != nil {
			if err := o.RedirectCheck(req.URL); err != nil {
				return fmt.Errorf("server %q redirected to %s, which the managed policy refuses: %w", o.ID, redact.URL(req.URL.String()), err)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c, g
}

// sameOrigin compares scheme, host and port. Go's client alone would send
// the Authorization header to another port of the same host.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u.Hostname() + ":443"
	case "http":
		return u.Hostname() + ":80"
	}
	return u.Host
}

// debugRoundTripper logs every HTTP exchange with a server, secrets masked:
// method, URL, headers, the start of the request body, status and time.
type debugRoundTripper struct {
	base http.RoundTripper
	log  *slog.Logger
	id   string
}

const debugBodyBytes = 2 << 10

func (d *debugRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	attrs := []any{"server", d.id, "method", req.Method, "url", redact.URL(req.URL.String()), "headers", redact.Header(req.Header)}
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, debugBodyBytes))
			body.Close()
			attrs = append(attrs, "body", string(redact.JSON(b)))
		}
	}
	start := time.Now()
	resp, err := d.base.RoundTrip(req)
	attrs = append(attrs, "took", time.Since(start).Round(time.Microsecond))
	if err != nil {
		d.log.Debug("http", append(attrs, "error", redact.String(err.Error()))...)
		return resp, err
	}
	d.log.Debug("http", append(attrs, "status", resp.StatusCode, "response_headers", redact.Header(resp.Header))...)
	return resp, nil
}
