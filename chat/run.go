package chat

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
	"github.com/mcp-host/mcp-host/internal/stderrtail"
	"github.com/mcp-host/mcp-host/protocol"
)

// Options configure [Run].
type Options struct {
	// Serve is the argv that starts `host serve` (with its flags).
	Serve []string
	// Env is the child's environment; nil inherits ours.
	Env []string
	// LogFile receives the child's stderr (never the screen).
	LogFile string
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
}

// Run starts the runtime, initializes the protocol and runs the screen
// until the person quits. The runtime is shut down on the way out.
func Run(ctx context.Context, o Options) error {
	logf, err := os.OpenFile(o.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("chat: log file: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(o.Serve[0], o.Serve[1:]...)
	cmd.Env = o.Env
	// The log gets all of the runtime's stderr; its last lines say why it
	// did not start, when it does not.
	var tail stderrtail.Tail
	cmd.Stderr = io.MultiWriter(logf, &tail)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("chat: starting %s: %w", o.Serve[0], err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()

	var prog *tea.Program
	ready := make(chan struct{})
	br := &bridge{send: func(msg tea.Msg) {
		<-ready
		prog.Send(msg)
	}}
	conn := protocol.NewConn(stdout, stdin, protocol.ClientHandler(br), protocol.ConnOptions{})
	go conn.Run(ctx)
	rt := protocol.NewServerCaller(conn)
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	init, err := rt.Initialize(ictx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version,
		ClientInfo:      protocol.Implementation{Name: "host chat"},
		Capabilities:    protocol.UICapabilities{Confirm: true, Prompt: true, Elicit: true, MCPPrompts: true},
	})
	cancel()
	if err != nil {
		return stderrtail.StartError(err, exited, &tail, o.LogFile)
	}
	m := NewModel(rt, init)
	if init.Capabilities.Primitives {
		m.prim = protocol.NewPrimitivesCaller(conn)
	}
	m.ends = protocol.NewConversationCaller(conn)
	// The first lines are printed before the program reports the
	// terminal's size: wrap them for the real width, not the default.
	if f, ok := o.Out.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if w, h, err := term.GetSize(f.Fd()); err == nil && w > 0 {
			m.update(tea.WindowSizeMsg{Width: w, Height: h})
		}
	}
	prog = tea.NewProgram(m, tea.WithInput(o.In), tea.WithOutput(o.Out), tea.WithContext(ctx))
	close(ready)
	go func() {
		<-conn.Done()
		prog.Send(quitMsg{})
	}()
	_, err = prog.Run()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("chat: %w", err)
	}
	return nil
}
