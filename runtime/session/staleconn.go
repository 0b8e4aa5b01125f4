package session

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"

	"github.com/mcp-host/mcp-host/redact"
)

// A connection kept idle in the pool can be dead without the host having
// seen it end: the machine slept through the server's FIN (the pool's idle
// timeout runs on the monotonic clock, which stands still during a
// suspend, so it does not drop the connection either), the server
// restarted, a NAT forgot the flow. The first request written on it then
// fails with a reset or an EOF before any answer. Go's transport sends
// again only a request that is idempotent or of which nothing was written,
// so a tools/call (a POST) would fail with "connection reset by peer"
// although the server never saw it.
//
// sendFresh sends such a request once more, on a new connection, under
// the rule browsers and curl apply: the failed connection was reused from
// the pool, no byte of an answer came, the request can be rebuilt and its
// context is live. The idle connections of the transport are closed
// first: after a sleep they are all suspect. A request that fails again,
// fails on a new connection, or times out is not repeated.
func (g *guardRoundTripper) sendFresh(req *http.Request) (*http.Response, error) {
	var reused atomic.Bool
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused.Store(info.Reused) }}
	resp, err := g.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err == nil || !reused.Load() || req.Context().Err() != nil || !staleConnErr(err) {
		return resp, err
	}
	again := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return resp, err
		}
		body, berr := req.GetBody()
		if berr != nil {
			return resp, err
		}
		again.Body = body
	}
	g.log.Debug("connection found dead on reuse; sending again on a new one", "server", g.id, "method", req.Method, "error", redact.String(err.Error()))
	if g.closeIdle != nil {
		g.closeIdle()
	}
	return g.next.RoundTrip(again)
}

// staleConnErr reports whether err is what a dead connection gives the
// first request written on it: the peer reset or closed it (EOF), or a
// read or write on it failed; not a timeout.
func staleConnErr(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && (oe.Op == "read" || oe.Op == "write")
}
