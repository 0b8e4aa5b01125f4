package session

import (
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

// stdioProcess is a stdio MCP server: a child in its own process group whose
// stdin and stdout carry newline-delimited JSON-RPC and whose stderr goes to a
// ring buffer.
type stdioProcess struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	stderr *ringBuffer
	filter *lineFilter // over stdout
	grace  time.Duration

	replies atomic.Int32 // answers of our own being written to stdin

	exited    chan struct{} // closed when the leader has been reaped
	waitErr   error
	closeOnce sync.Once
	closeErr  error
}

// startStdio starts the server described by o.
func startStdio(o *Options) (*stdioProcess, error) {
	cmd := exec.Command(o.Command, o.Args...)
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
	setProcessGroup(cmd)
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
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// transport returns an SDK transport over the process's pipes, stdout
// filtered (see [lineFilter]). Closing the connection shuts the process down.
func (p *stdioProcess) transport() mcp.Transport {
	// The filter enforces the line cap; the SDK's own must not be lower.
	return &mcp.IOTransport{Reader: nopCloser{p.filter}, Writer: stdinCloser{p}, MaxLineLength: p.filter.max + 2}
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

// shutdown closes stdin, waits for the leader to exit, then signals the whole
// process group: SIGTERM after the grace period, SIGKILL after another. It
// returns once no member of the group is left or the kill was sent, within
// about three grace periods.
func (p *stdioProcess) shutdown() error {
	p.closeOnce.Do(func() {
		p.stdin.Close()
		wait := func(d time.Duration) bool {
			select {
			case <-p.exited:
				return true
			case <-time.After(d):
				return false
			}
		}
		if !wait(p.grace) {
			signalGroup(p.cmd, false)
			if !wait(p.grace) {
				signalGroup(p.cmd, true)
				wait(p.grace)
			}
		}
		// The leader is gone; make sure nothing it spawned outlives it.
		if groupAlive(p.cmd) {
			signalGroup(p.cmd, false)
			deadline := time.Now().Add(p.grace)
			for groupAlive(p.cmd) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if groupAlive(p.cmd) {
				signalGroup(p.cmd, true)
			}
		}
		p.stdout.Close()
		select {
		case <-p.exited:
		default:
			p.closeErr = errors.New("stdio server did not exit")
		}
	})
	return p.closeErr
}

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
