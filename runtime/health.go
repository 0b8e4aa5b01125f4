package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// checkHealth pings a session after a failed call and reconnects when the
// server no longer answers.
func (sv *server) checkHealth(s *session.Session) {
	ctx, cancel := context.WithTimeout(sv.ctx, 5*time.Second)
	defer cancel()
	err := s.Ping(ctx)
	if err == nil || sv.ctx.Err() != nil {
		return
	}
	if sv.entry.Config.TransportName() == "stdio" {
		// A server that exited fails the ping at once, a moment before its
		// session reports the loss with how it ended (exit status, stderr):
		// that reason is the one the status should show.
		select {
		case <-s.Done():
			return // the server's goroutine sees it
		case <-sv.ctx.Done():
			return
		case <-time.After(lossReportWait):
		}
	}
	sv.lose(s, fmt.Errorf("server %q stopped answering: %w", sv.entry.ID, err))
}

// lossReportWait bounds how long a failed health check of a stdio server
// waits for the session to report its own end (it waits up to 500 ms for
// the process to be reaped) before it reports the server lost.
const lossReportWait = time.Second

// lose tells the server's goroutine that session s is no longer usable,
// unless s has been replaced already.
func (sv *server) lose(s *session.Session, err error) {
	sv.mu.Lock()
	current := sv.sess == s
	sv.mu.Unlock()
	if current {
		select {
		case sv.lostc <- lostConn{s, err}:
		default:
		}
	}
}

// lostConn says that sess stopped answering, and why. It names the
// session so that a signal arriving after a reconnect cannot tear down the
// new, healthy one.
type lostConn struct {
	sess *session.Session
	err  error
}
