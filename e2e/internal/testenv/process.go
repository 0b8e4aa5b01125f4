package testenv

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultReadyTimeout is how long StartProcess waits for ReadyPort when
// ProcessOptions.ReadyTimeout is zero.
const DefaultReadyTimeout = 30 * time.Second

// outputLimit bounds the output a Process keeps: the last bytes, which say
// why a peer failed.
const outputLimit = 64 << 10

// ProcessOptions says what StartProcess runs and when it counts as ready.
type ProcessOptions struct {
	// Argv is the program and its arguments. Required.
	Argv []string
	// Env is added to the test's own environment (later entries win).
	Env []string
	// Dir is the working directory; empty means the test's.
	Dir string
	// ReadyPort, when not zero, is a TCP port on 127.0.0.1 that accepts
	// connections once the process is ready. StartProcess waits for it.
	ReadyPort int
	// ReadyTimeout bounds the wait for ReadyPort (DefaultReadyTimeout if 0).
	ReadyTimeout time.Duration
}

// Process is a child started by StartProcess. Its whole process group is
// killed when the test ends.
type Process struct {
	cmd    *exec.Cmd
	out    *tailBuffer
	exited chan struct{}
}

// Pid returns the child's process id, which is also its process group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Output returns the last 64 KiB of the child's combined stdout and stderr.
func (p *Process) Output() string { return p.out.String() }

// Exited is closed once the child has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// StartProcess starts opts.Argv in its own process group, keeps the tail of
// its stdout and stderr for failure messages, and waits until
// opts.ReadyPort accepts connections (if set). It fails the test, showing the
// output, when the child cannot start, exits early or is not ready in time.
// When the test ends, the whole group is killed and reaped.
func StartProcess(t testing.TB, opts ProcessOptions) *Process {
	t.Helper()
	p, err := startProcess(t, opts)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return p
}

func startProcess(t testing.TB, opts ProcessOptions) (*Process, error) {
	if len(opts.Argv) == 0 {
		return nil, errors.New("StartProcess: empty Argv")
	}
	cmd := exec.Command(opts.Argv[0], opts.Argv[1:]...)
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.Dir = opts.Dir
	out := &tailBuffer{limit: outputLimit}
	cmd.Stdout, cmd.Stderr = out, out
	OwnGroup(cmd)
	// Output pipes held open by a stray grandchild must not block Wait.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(opts.Argv, " "), err)
	}
	p := &Process{cmd: cmd, out: out, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.kill)
	if opts.ReadyPort == 0 {
		return p, nil
	}
	if err := p.waitReady(opts); err != nil {
		p.kill()
		return p, err // p has exited; tests of this package look at it
	}
	return p, nil
}

// Stop ends the whole process group now and waits for it, as the test's
// end would.
func (p *Process) Stop() { p.kill() }

// kill ends the whole process group and waits for the child to be reaped.
func (p *Process) kill() {
	// The group outlives its leader while any member lives, so this also
	// reaches grandchildren after the leader has exited.
	KillGroup(p.cmd)
	<-p.exited
}

func (p *Process) waitReady(opts ProcessOptions) error {
	timeout := opts.ReadyTimeout
	if timeout == 0 {
		timeout = DefaultReadyTimeout
	}
	name := strings.Join(opts.Argv, " ")
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.ReadyPort))
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.exited:
			return &earlyExitError{name: name, addr: addr, state: p.cmd.ProcessState.String(), output: p.Output()}
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept connections on %s within %v; output:\n%s", name, addr, timeout, p.Output())
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// earlyExitError is a child that exited before it was ready.
type earlyExitError struct {
	name, addr, state, output string
}

func (e *earlyExitError) Error() string {
	return fmt.Sprintf("%s exited (%s) before accepting connections on %s; output:\n%s", e.name, e.state, e.addr, e.output)
}

// tailBuffer is an io.Writer that keeps only the last limit bytes written.
type tailBuffer struct {
	mu      sync.Mutex
	limit   int
	buf     []byte
	dropped int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.dropped += int64(over)
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String returns what is kept, saying how much was dropped before it.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped > 0 {
		return fmt.Sprintf("[%d earlier bytes dropped]\n%s", b.dropped, b.buf)
	}
	return string(b.buf)
}
