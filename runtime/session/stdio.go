package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioProcess is a stdio MCP server: a child in its own process group (a
// Job Object on Windows) whose stdin and stdout carry newline-delimited
// JSON-RPC and whose stderr goes to a ring buffer.
type stdioProcess struct {
	cmd    *exec.Cmd
	tree   *procTree
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	stderr *ringBuffer
	filter *lineFilter // over stdout
	calls  inFlight    // our requests the server has not answered
	grace  time.Duration

	replies atomic.Int32 // answers of our own being written to stdin

	exited    chan struct{} // closed when the leader has been reaped
	waitErr   error
	closeOnce sync.Once
	closeErr  error
}

// startStdio starts the server described by o.
func startStdio(o *Options) (*stdioProcess, error) {
	cmd, err := command(o)
	if err != nil {
		return nil, err
	}
	cmd.Dir = o.Dir
	if len(o.Env) > 0 {
		env := os.Environ()
		keys := make([]string, 0, len(o.Env))
		for k := range o.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			env = append(env, k+"="+o.Env[k])
		}
		cmd.Env = env
	}
	tree := newProcTree()
	tree.prepare(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	p := &stdioProcess{
		cmd:    cmd,
		tree:   tree,
		stdin:  inW,
		stdout: outR,
		stderr: newRingBuffer(o.StderrBytes),
		grace:  o.ShutdownGrace,
		exited: make(chan struct{}),
	}
	p.filter = newLineFilter(outR, o.maxResponseBytes(), o.ID, p.stderr.Note, p.reply)
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = p.stderr
	// A grandchild may keep stderr open after the leader exits; do not let
	// that hold Wait.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start %q: %w", o.Command, err)
	}
	// The child holds its own copies now.
	inR.Close()
	outW.Close()
	if err := tree.started(cmd); err != nil {
		// The server runs, but its tree may outlive it: say so.
		p.stderr.Note(fmt.Sprintf("[host: %v; only the server process itself will be stopped]", err))
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
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
	return &stdioConn{Connection: c, calls: &t.p.calls}, nil
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
		p.stderr.Note("[host: server not reading its stdin; an answer was dropped]")
		return
	}
	go func() {
		defer p.replies.Add(-1)
		_, _ = p.stdin.Write(msg) // an *os.File writes each message whole
	}()
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

func (s stdinCloser) Write(b []byte) (int, error) { return s.p.stdin.Write(b) }
func (s stdinCloser) Close() error                { return s.p.shutdown() }

// exitErr reports how the process ended, or nil while it runs.
func (p *stdioProcess) exitErr() error {
	select {
	case <-p.exited:
		if p.waitErr == nil {
			return errors.New("process exited")
		}
		return fmt.Errorf("process exited: %w", p.waitErr)
	default:
		return nil
	}
}

// pid returns the leader's process id.
func (p *stdioProcess) pid() int { return p.cmd.Process.Pid }
