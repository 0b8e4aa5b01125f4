package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExitedError is a request that failed because the stdio server's
// process exited while the request waited for its answer (a crash in a
// tool, a refused mkdir it does not survive): the transport only says
// EOF, this says that the server is gone and how it ended. The error a
// request returns wraps it with the server's stderr tail.
type ExitedError struct {
	// Server is the server's id.
	Server string
	// Method and Target are the request that was waiting ("tools/call"
	// and the tool's name; Target may be "").
	Method, Target string
	// Status is how the process ended, as its wait status reads ("exit
	// status 1", "signal: killed").
	Status string
	// Err is what the transport said (EOF, a closed pipe).
	Err error
}

// Error says which server exited during which request, and how.
func (e *ExitedError) Error() string {
	during := e.Method
	switch {
	case e.Method == "tools/call" && e.Target != "":
		during = fmt.Sprintf("the call of tool %q", e.Target)
	case e.Method == "tools/call":
		during = "the call"
	case e.Target != "":
		during = fmt.Sprintf("%s %q", e.Method, e.Target)
	}
	return fmt.Sprintf("server %q exited during %s (%s)", e.Server, during, e.Status)
}

// Unwrap returns what the transport said.
func (e *ExitedError) Unwrap() error { return e.Err }

// exited is the error of a request that failed in the transport because
// the stdio server's process exited, with its stderr tail (see
// [stdioProcess.withTail]); nil when the process still runs after a
// moment's wait, when Close stopped it, and for HTTP.
func (s *Session) exited(method, target string, err error) error {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return nil
	}
	status, ok := p.ExitStatus()
	if !ok && connectionGone(err) {
		// The pipe closes as the process exits; its reaping comes a
		// moment later. Other errors (the SDK's own checks of an
		// answer) do not wait.
		p.awaitExit()
		status, ok = p.ExitStatus()
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if !ok || closing {
		return nil
	}
	return p.withTail(&ExitedError{Server: s.opts.ID, Method: method, Target: target, Status: status, Err: err})
}

// connectionGone reports whether err says the server's end of the pipes
// closed: its stdout at EOF, its stdin a broken pipe.
func connectionGone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}
