package session

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// drainBound is how long the rest of a call's event stream may take to end
// after the answer was handed on, before the exchange is cut.
const drainBound = 2 * time.Second

// An exchange ties the HTTP exchange that carries one call to the call's
// context only until the call's answer has been handed to the SDK.
//
// The SDK returns a call's result as soon as the answer event arrives, and
// reads the end of the stream afterwards, on its own goroutine. The caller
// then ends the call's context (the session's per-request timeout always
// does), and Go's transport, seeing the request's context end while the
// body is still being read, closes the connection instead of putting it
// back in the pool: a new TCP connection for the next call. An exchange
// gives the request a context of its own that the call's context cancels
// while the call waits for its answer (a timeout or a cancellation still
// stops the request at once), but not once the answer is in: the end of the
// stream is then read within drainBound and the connection reused.
//
// It is also the response body: Close ends the exchange.
type exchange struct {
	io.ReadCloser

	cancel context.CancelFunc // cancels the request's own context
	stop   func() bool        // detaches from the call's context

	mu       sync.Mutex
	answered bool
	ended    bool
	timer    *time.Timer
}

// detach returns req with a context of its own and the exchange that
// governs it.
func detach(req *http.Request) (*http.Request, *exchange) {
	call := req.Context()
	ctx, cancel := context.WithCancel(context.WithoutCancel(call))
	x := &exchange{cancel: cancel}
	x.stop = context.AfterFunc(call, func() {
		x.mu.Lock()
		answered := x.answered
		x.mu.Unlock()
		if !answered {
			cancel()
		}
	})
	return req.WithContext(ctx), x
}

// answeredNow records that the call's answer is being handed on: from now
// on only drainBound or Close ends the exchange. It must be called before
// the SDK can read the answer. A nil exchange does nothing.
func (x *exchange) answeredNow() {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.answered || x.ended {
		return
	}
	x.answered = true
	x.stop()
	x.timer = time.AfterFunc(drainBound, x.cancel)
}

// end releases the exchange. A nil exchange does nothing.
func (x *exchange) end() {
	if x == nil {
		return
	}
	x.mu.Lock()
	x.ended = true
	if x.timer != nil {
		x.timer.Stop()
	}
	x.mu.Unlock()
	x.stop()
	x.cancel()
}

// Close closes the body and ends the exchange.
func (x *exchange) Close() error {
	err := x.ReadCloser.Close()
	x.end()
	return err
}
