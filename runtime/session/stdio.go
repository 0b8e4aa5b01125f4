package session

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcp-host/mcp-host/runtime/process"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioProcess is a stdio MCP server: a [process.Process] whose stdin and
// stdout carry newline-delimited JSON-RPC, stdout filtered (see
// [lineFilter]), with the requests in flight tracked so that a shutdown
// can cancel them.
type stdioProcess struct {
	*process.Process
	filter *lineFilter // over stdout
	calls  inFlight    // our requests the server has not answered

	replies atomic.Int32 // answers of our own being written to stdin
}

// startStdio starts the server described by o.
func startStdio(o *Options) (*stdioProcess, error) {
	proc, err := process.Start(process.Options{
		ID:            o.ID,
		Command:       o.Command,
		Args:          o.Args,
		Dir:           o.Dir,
		Env:           o.Env,
		EnvVars:       o.EnvVars,
		StderrBytes:   o.StderrBytes,
		ShutdownGrace: o.ShutdownGrace,
		Wrap:          o.WrapCommand,
	})
	if err != nil {
		return nil, err
	}
	p := &stdioProcess{Process: proc}
	p.filter = newLineFilter(proc.Stdout(), o.maxResponseBytes(), o.ID, proc.Stderr().Note, p.reply)
	p.filter.pace = newPacer(o.ID, o.logger())
	return p, nil
}

// transport returns an SDK transport over the process's pipes, stdout
// filtered (see [lineFilter]), that keeps track of the requests in flight.
// Closing the connection shuts the process down.
func (p *stdioProcess) transport() mcp.Transport { return stdioTransport{p} }

type stdioTransport struct{ p *stdioProcess }

func (t stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	// The filter enforces the line cap; the SDK's own must not be lower.
	io := &mcp.IOTransport{Reader: nopCloser{t.p.filter}, Writer: stdinCloser(t), MaxLineLength: t.p.filter.max + 2}
	c, err := io.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stdioConn{Connection: c, calls: &t.p.calls, caps: &t.p.filter.caps, max: t.p.filter.max}, nil
}

// maxReplies bounds the answers of our own (to requests the SDK must not
// see) being written to the server at once; a server that does not read its
// stdin must not make them pile up.
const maxReplies = 16

// reply writes msg to the server's stdin without blocking the stdout
// reader: a server blocked writing stdout while we block writing its stdin
// would hang both.
func (p *stdioProcess) reply(msg []byte) {
	if p.replies.Add(1) > maxReplies {
		p.replies.Add(-1)
		p.Stderr().Note("[host: server not reading its stdin; an answer was dropped]")
		return
	}
	go func() {
		defer p.replies.Add(-1)
		_, _ = p.Write(msg) // an *os.File writes each message whole
	}()
}

// shutdown cancels the requests in flight and ends the process tree (see
// [process.Process.Shutdown]).
func (p *stdioProcess) shutdown() error { return p.Shutdown(p.cancelCalls) }

// exitReapWait bounds how long a lost stdio session waits for its process
// to be reaped before it reports the loss.
const exitReapWait = 500 * time.Millisecond

// awaitExit gives a process whose pipe closed a moment to be reaped, so
// that the loss can say how it ended (and hint at env_vars).
func (p *stdioProcess) awaitExit() {
	select {
	case <-p.Exited():
	case <-time.After(exitReapWait):
	}
}

// withTail adds the server's stderr tail to err and, when the process has
// exited, a hint that names the environment variables it got: a server
// that needs a variable it no longer gets fails this way.
func (p *stdioProcess) withTail(err error) error {
	if tail := strings.TrimSpace(p.Stderr().String()); tail != "" {
		err = fmt.Errorf("%w; stderr: %s", err, lastLines(tail, 5))
	}
	if p.ExitErr() != nil {
		err = fmt.Errorf("%w; %s", err, p.Names().Hint())
	}
	return err
}

// SkippedStdoutLines returns how many lines a stdio server wrote to stdout
// that were not passed on as JSON-RPC (banners, logs, malformed or oversized
// messages); each is noted in [Session.Stderr]. It is 0 for HTTP servers.
func (s *Session) SkippedStdoutLines() int64 {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return 0
	}
	return p.filter.Skipped()
}

type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

type stdinCloser struct{ p *stdioProcess }

func (s stdinCloser) Write(b []byte) (int, error) { return s.p.Write(b) }
func (s stdinCloser) Close() error                { return s.p.shutdown() }

// NoteStderr adds a line of the host's own to a stdio server's kept
// stderr (such as what its network proxy refused); nothing for HTTP.
func (s *Session) NoteStderr(line string) {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p != nil {
		p.Stderr().Note(line)
	}
}
