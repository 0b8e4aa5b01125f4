package session

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// guardRoundTripper is the outermost layer of every HTTP client a session
// uses. It is where the session's promises about the network are kept,
// whatever the SDK or the server asks for:
//
//   - a request goes only to the server's own origin (scheme, host and
//     port), so configured headers, tokens and DPoP proofs never reach
//     another one;
//   - what the session reads of a response is bounded while it is read,
//     after decompression (see wrapBody and sseGuard);
//   - a 429 or 503 with a short Retry-After is sent once more after it
//     (see retryWait);
//   - a request that met a dead pooled connection (after a sleep, a
//     server restart) is sent once more on a new one (see sendFresh).
type guardRoundTripper struct {
	id     string   // server id, for errors
	origin *url.URL // the server's configured URL
	// crossOrigin says how a request to another origin came about, for the
	// error: "redirect", "the SSE endpoint event" and so on.
	crossOrigin string
	legacySSE   bool // the client of the legacy SSE transport
	max         int  // Options.MaxResponseBytes
	log         *slog.Logger
	next        http.RoundTripper
	headers     *headerRoundTripper // the static-header layer inside next
	// closeIdle closes the idle connections of the transport under next,
	// nil when it has no such method (see sendFresh).
	closeIdle func()
	// pace bounds how fast the server's events are read (pace.go).
	pace *pacer

	refused  atomic.Pointer[crossOriginError] // the last refused request
	endpoint atomic.Pointer[url.URL]          // the legacy endpoint, once checked
	replies  chan struct{}                    // bounds answers sent by refuse
}

// maxPendingReplies bounds the answers to refused server requests in flight.
const maxPendingReplies = 4

// legacyServer reports whether the first POST was refused in the way a
// 2024-11-05 HTTP+SSE server refuses it.
func (g *guardRoundTripper) legacyServer() bool { return g.headers.legacyServer() }

// refusal returns the error of the last request refused for its origin, or
// nil. The SDK flattens transport errors into text, so a caller that wants
// to report the refusal as such asks here.
func (g *guardRoundTripper) refusal() error {
	if e := g.refused.Load(); e != nil {
		return e
	}
	return nil
}

func (g *guardRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if g.origin != nil && !sameOrigin(req.URL, g.origin) {
		if req.Body != nil {
			req.Body.Close()
		}
		err := &crossOriginError{id: g.id, what: g.crossOrigin, to: req.URL, own: g.origin}
		g.refused.Store(err)
		return nil, err
	}
	// A request that carries a call gets a context of its own (see
	// exchange), so that the call's end does not cost its connection.
	call, id := req, callID(req)
	var x *exchange
	if id != nil {
		req, x = detach(req)
	}
	resp, err := g.sendFresh(req) // staleconn.go
	if err != nil {
		x.end()
		return nil, err
	}
	if d, ok := retryWait(call, resp, time.Now()); ok {
		if resp, err = g.retry(req, resp, d); err != nil {
			x.end()
			return nil, err
		}
	}
	g.wrapBody(req, resp, id, x)
	if x != nil {
		if resp.Body == nil {
			x.end()
		} else {
			x.ReadCloser, resp.Body = resp.Body, x
		}
	}
	return resp, nil
}

// crossOriginError refuses a request to another origin than the server's.
type crossOriginError struct {
	id, what string
	to, own  *url.URL
}

func (e *crossOriginError) Error() string {
	return fmt.Sprintf("%s names %s, another origin than server %q's own %s; nothing was sent there, so that the server's headers and token stay with its origin",
		e.what, origin(e.to), e.id, origin(e.own))
}

// origin renders scheme://host:port without path, query or user info.
func origin(u *url.URL) string {
	return u.Scheme + "://" + hostPort(u)
}
