package process

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// Defaults of [Options].
const (
	DefaultStderrBytes   = 64 << 10
	DefaultShutdownGrace = 2 * time.Second
)

// Options describe one local server's process.
type Options struct {
	// ID is the server's id. Errors do not repeat it: the caller names
	// the server; a Wrap may use it.
	ID string
	// Command and Args are the program and its arguments; Dir is its
	// working directory ("" means the host's).
	Command string
	Args    []string
	Dir     string
	// Env sets variables for the server, over the base set.
	Env map[string]string
	// EnvVars names variables of the host's environment the server gets
	// too (passthrough by name). Everything else of the host's environment
	// is withheld; see [Environ].
	EnvVars []string
	// StderrBytes bounds the kept tail of the server's stderr (0 means
	// DefaultStderrBytes).
	StderrBytes int
	// ShutdownGrace is how long the server may take to exit after its
	// stdin closes, and again after SIGTERM, before its tree is killed (0
	// means DefaultShutdownGrace).
	ShutdownGrace time.Duration
	// Wrap, when set, is called with the command just before it starts:
	// path, arguments, environment, directory and process attributes are
	// final, so it may change how the command runs (such as under an OS
	// sandbox). It returns the function that starts the command (nil:
	// cmd.Start). An error, from Wrap or from that function, stops the
	// start and is returned with the command named.
	Wrap func(*exec.Cmd) (start func() error, err error)
}

// A Process is a started local server: a child in a tree of its own whose
// stdin and stdout are pipes for the caller and whose stderr goes to a
// [RingBuffer].
type Process struct {
	cmd    *exec.Cmd
	tree   *procTree
	names  Names
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	stderr *RingBuffer
	grace  time.Duration

	exited    chan struct{} // closed when the leader has been reaped
	waitErr   error
	closeOnce sync.Once
	closeErr  error
}

// Start starts the server described by o.
func Start(o Options) (*Process, error) {
	if o.StderrBytes <= 0 {
		o.StderrBytes = DefaultStderrBytes
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	cmd, err := command(&o)
	if err != nil {
		return nil, err
	}
	closeInheritedOnExec()
	cmd.Dir = o.Dir
	host := os.Environ()
	cmd.Env = Environ(runtime.GOOS, host, o.Env, o.EnvVars)
	tree := newProcTree()
	tree.prepare(cmd)
	start := cmd.Start
	if o.Wrap != nil {
		wrapped, err := o.Wrap(cmd)
		if err != nil {
			return nil, fmt.Errorf("prepare %q: %w", o.Command, err)
		}
		if wrapped != nil {
			start = wrapped
		}
	}
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
	p := &Process{
		cmd:    cmd,
		tree:   tree,
		names:  NamesFor(runtime.GOOS, host, o.Env, o.EnvVars),
		stdin:  inW,
		stdout: outR,
		stderr: NewRingBuffer(o.StderrBytes),
		grace:  o.ShutdownGrace,
		exited: make(chan struct{}),
	}
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = p.stderr
	// A grandchild may keep stderr open after the leader exits; do not let
	// that hold Wait.
	cmd.WaitDelay = time.Second
	if err := start(); err != nil {
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

// Write writes b to the server's stdin. An *os.File writes each call's
// bytes whole, so concurrent messages do not interleave.
func (p *Process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Stdout is the server's stdout. It ends when the server and everything
// that inherited it have closed it, or on Shutdown.
func (p *Process) Stdout() io.Reader { return p.stdout }

// Stderr is the kept tail of the server's stderr, where the caller may add
// notes of its own about the server.
func (p *Process) Stderr() *RingBuffer { return p.stderr }

// Names says which environment variables the server got (names only).
func (p *Process) Names() Names { return p.names }

// PID returns the leader's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited is closed once the leader has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitStatus says how the leader ended, as its wait status reads ("exit
// status 3", "signal: killed"); ok is false while it runs.
func (p *Process) ExitStatus() (status string, ok bool) {
	select {
	case <-p.exited:
	default:
		return "", false
	}
	if ps := p.cmd.ProcessState; ps != nil {
		return ps.String(), true
	}
	return "exited", true // Wait failed before the leader was reaped
}

// ExitErr reports how the process ended, or nil while it runs.
func (p *Process) ExitErr() error {
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
