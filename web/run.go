package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/mcp-host/mcp-host/internal/stderrtail"
	"github.com/mcp-host/mcp-host/protocol"
)

// Options configure [Run].
type Options struct {
	// Serve is the argv that starts `host serve` (with its flags).
	Serve []string
	// Env is the child's environment; nil inherits ours.
	Env []string
	// Dir is the child's working directory (where a project's
	// .mcp-host/config.json is looked for); "" is ours.
	Dir string
	// LogFile receives the child's stderr.
	LogFile string
	// Out receives the address to open (it holds the secret: print it only
	// to the person's terminal).
	Out io.Writer
	// Open, when set, opens the address in a browser; its error is printed
	// and the page can still be opened by hand.
	Open func(url string) error
	// Addr is where the page listens; the default 127.0.0.1:0 is a random
	// loopback port. The app frames always get their own random port.
	Addr string
	// Started, when set, is called with the address once both listeners
	// serve (tests use it).
	Started func(url string)
}

// Run starts the runtime, initializes the protocol, serves the page until
// ctx ends or the runtime exits, then shuts the runtime down.
func Run(ctx context.Context, o Options) error {
	logf, err := os.OpenFile(o.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("web: log file: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(o.Serve[0], o.Serve[1:]...)
	cmd.Env = o.Env
	cmd.Dir = o.Dir
	// The log gets all of the runtime's stderr; its last lines say why it
	// did not start, when it does not.
	var tail stderrtail.Tail
	cmd.Stderr = io.MultiWriter(logf, &tail)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("web: starting %s: %w", o.Serve[0], err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	b := NewBridge()
	conn := protocol.NewConn(stdout, stdin, b.Handler(), protocol.ConnOptions{})
	go conn.Run(ctx)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = conn.Call(sctx, protocol.MethodShutdown, &protocol.Empty{}, nil)
		cancel()
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	var init json.RawMessage
	err = conn.Call(ictx, protocol.MethodInitialize, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version,
		ClientInfo:      protocol.Implementation{Name: "host web"},
		Capabilities:    protocol.UICapabilities{Confirm: true, Prompt: true, OpenURL: true, Elicit: true, MCPPrompts: true},
	}, &init)
	cancel()
	if err != nil {
		return stderrtail.StartError(err, exited, &tail, o.LogFile)
	}
	b.Attach(conn, init)

	s, servers, err := Listen(o.Addr, b)
	if err != nil {
		return err
	}
	defer func() {
		for _, srv := range servers {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = srv.Shutdown(sctx)
			cancel()
			_ = srv.Close()
		}
	}()
	url := s.URL()
	fmt.Fprintf(o.Out, "host web: open %s\n(the address holds a key: do not share it; Ctrl-C stops)\n", url)
	if o.Open != nil {
		if err := o.Open(url); err != nil {
			fmt.Fprintf(o.Out, "host web: could not open a browser (%v); open the address above by hand\n", err)
		}
	}
	if o.Started != nil {
		o.Started(url)
	}
	select {
	case <-ctx.Done():
		b.Close("host web is stopping")
		return nil
	case <-conn.Done():
		b.Close("the runtime has stopped")
		// Ctrl-C at a terminal reaches the runtime too (one process
		// group), and it may stop first: that is no failure.
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
		return fmt.Errorf("web: the runtime stopped (see %s)", o.LogFile)
	}
}

// Listen opens the page's listener on addr (default 127.0.0.1:0) and the
// app frames' listener on another random loopback port, and serves both
// for b. It returns the server (its URL holds the secret) and the two
// http.Servers to shut down.
func Listen(addr string, b *Bridge) (*Server, []*http.Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if h, _, err := net.SplitHostPort(addr); err != nil || h != "127.0.0.1" && h != "localhost" {
		return nil, nil, fmt.Errorf("web: --addr %q: the page listens on loopback only (127.0.0.1:PORT)", addr)
	}
	pageLn, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("web: listen on %s: %w", addr, err)
	}
	appLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		pageLn.Close()
		return nil, nil, fmt.Errorf("web: listen for app frames: %w", err)
	}
	appPort := appLn.Addr().(*net.TCPAddr).Port
	s, err := NewServer(pageLn.Addr().(*net.TCPAddr).Port, b, "http://127.0.0.1:"+strconv.Itoa(appPort), appPort)
	if err != nil {
		pageLn.Close()
		appLn.Close()
		return nil, nil, err
	}
	page := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	apps := &http.Server{Handler: s.AppHandler(), ReadHeaderTimeout: 10 * time.Second}
	for srv, ln := range map[*http.Server]net.Listener{page: pageLn, apps: appLn} {
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				fmt.Fprintf(os.Stderr, "host web: %v\n", err)
			}
		}()
	}
	return s, []*http.Server{page, apps}, nil
}
