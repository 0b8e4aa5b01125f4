package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// requestErr wraps a failed request with the server, the method and what
// happened: a timeout, a cancellation, the server's process exiting (see
// [ExitedError]), a lost connection or the server's error.
func (s *Session) requestErr(ctx context.Context, method, target string, err error) error {
	err = markMadeUp(err)
	what := method
	if target != "" {
		what = fmt.Sprintf("%s %q", method, target)
	}
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return fmt.Errorf("server %q: %s: %w", s.opts.ID, what, err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= 0 {
			return fmt.Errorf("server %q: %s: timed out (request timeout %s): %w", s.opts.ID, what, s.opts.RequestTimeout, context.DeadlineExceeded)
		}
	case errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("server %q: %s: cancelled: %w", s.opts.ID, what, context.Canceled)
	}
	if exited := s.exited(method, target, err); exited != nil {
		// Before the lost connection: the watcher may have noticed the
		// exit first, and "connection lost" says less.
		return exited
	}
	s.mu.Lock()
	lost, closing := s.lostErr, s.closing
	s.mu.Unlock()
	if lost != nil {
		return fmt.Errorf("%s failed: %w", what, lost)
	}
	if closing {
		// Close ended the call (the host is shutting down or the server
		// was removed), not the server: say so, not "EOF".
		return fmt.Errorf("server %q: %s: the connection was closed while the call waited: %w", s.opts.ID, what, ErrClosed)
	}
	return fmt.Errorf("server %q: %s: %w", s.opts.ID, what, err)
}
