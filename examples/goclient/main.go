// Command goclient is a UI of mcp-host written in Go with package protocol
// alone, for teams whose shell is Go: it starts `host serve`, initializes,
// waits for the configured servers and lists them, runs one agent turn
// (answering its confirms) and prints the answer. It is the Go twin of
// the example in clients/typescript/README.md; main_test.go runs it
// against a freshly built host with a scripted model.
//
// Usage:
//
//	goclient [-host PATH] [-script FILE | -model NAME] [-yes] PROMPT
//
// The servers come from the user's configuration (MCP_HOST_CONFIG, as for
// every host command). Each tool call is asked on the terminal (allow
// once, or deny) unless -yes allows them all.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

func main() {
	host := flag.String("host", "host", "the mcp-host binary")
	script := flag.String("script", "", "answer with the scripted model of this file (see PROTOCOL.md, \"The scripted model\")")
	model := flag.String("model", "", "the model of an OpenAI-compatible API (OPENAI_API_KEY)")
	yes := flag.Bool("yes", false, "allow every tool call without asking")
	flag.Parse()
	if flag.NArg() != 1 || (*script == "") == (*model == "") {
		fmt.Fprintln(os.Stderr, "usage: goclient [-host PATH] (-script FILE | -model NAME) [-yes] PROMPT")
		os.Exit(2)
	}
	serve := []string{"--script", *script}
	if *model != "" {
		serve = []string{"--model", *model}
	}
	in := bufio.NewReader(os.Stdin)
	ask := func(p *protocol.ConfirmParams) protocol.ConfirmResult {
		if *yes {
			return protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}
		}
		fmt.Printf("\n%s\n%s\nallow once? [y/N] ", p.Title, p.Message)
		line, _ := in.ReadString('\n')
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y") {
			return protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}
		}
		return protocol.ConfirmResult{Answer: protocol.AnswerDeny}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	final, err := run(ctx, options{Host: *host, Serve: serve, Prompt: flag.Arg(0), Confirm: ask, Out: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "goclient:", err)
		os.Exit(1)
	}
	if final.Status != protocol.RunCompleted {
		os.Exit(1)
	}
}

// options are what run needs; the zero Env and Dir are this process's.
type options struct {
	Host   string   // the host binary
	Serve  []string // flags of host serve: the model
	Env    []string // host serve's environment
	Dir    string   // its working directory (a project's .mcp-host/config.json)
	Prompt string   // the user's turn
	// Confirm answers each ui.confirm.request (a tool call of the turn).
	Confirm func(*protocol.ConfirmParams) protocol.ConfirmResult
	Out     io.Writer // the transcript
	Stderr  io.Writer // host serve's log
}

// run starts host serve, initializes, lists the servers once none is
// connecting, runs one turn with o.Prompt and returns its final event. The
// runtime is shut down on the way out, and its exit status is checked.
func run(ctx context.Context, o options) (final *protocol.AgentEventParams, err error) {
	cmd := exec.Command(o.Host, append([]string{"serve"}, o.Serve...)...)
	cmd.Env, cmd.Dir, cmd.Stderr = o.Env, o.Dir, o.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s serve: %w", o.Host, err)
	}
	// The handlers of requests and of notifications run on goroutines
	// of their own: one writer, locked, for the transcript.
	o.Out = &syncWriter{w: o.Out}
	u := newUI(o)
	conn := protocol.NewConn(stdout, stdin, protocol.ClientHandler(u), protocol.ConnOptions{})
	go conn.Run(context.Background())
	rt := protocol.NewServerCaller(conn)
	defer func() {
		if serr := shutdown(rt, cmd, stdin, conn); err == nil {
			err = serr
		}
	}()

	init, err := rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version,
		ClientInfo:      protocol.Implementation{Name: "goclient", Version: "1.0"},
		Capabilities:    protocol.UICapabilities{Confirm: true},
	})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	fmt.Fprintf(o.Out, "%s %s, protocol %s, model %q\n", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion, init.Capabilities.Model)

	// A run sees the tools of the servers that are ready when it starts:
	// list the servers once none of them is connecting any more.
	var list *protocol.MCPListResult
	for {
		if list, err = rt.MCPList(ctx, &protocol.Empty{}); err != nil {
			return nil, fmt.Errorf("mcp.list: %w", err)
		}
		if !connecting(list.Servers) {
			break
		}
		select {
		case <-u.statusChanged:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the servers: %w", context.Cause(ctx))
		}
	}
	for _, s := range list.Servers {
		fmt.Fprintf(o.Out, "server %s (%s): %s, %d tools", s.ID, s.Transport, s.Status, s.Tools)
		if s.LastError != "" {
			fmt.Fprintf(o.Out, " (%s)", s.LastError)
		}
		fmt.Fprintln(o.Out)
	}

	r, err := rt.RunStart(ctx, &protocol.RunStartParams{Prompt: o.Prompt})
	if err != nil {
		return nil, fmt.Errorf("run.start: %w", err)
	}
	if final, err = u.waitFinal(ctx, r.RunID); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Out, "\nrun %s %s: %s\n", final.RunID, final.Status, final.Text+final.Reason)
	return final, nil
}

// connecting reports whether a server is still connecting.
func connecting(servers []protocol.ServerStatus) bool {
	for _, s := range servers {
		if s.Status == protocol.StateConnecting {
			return true
		}
	}
	return false
}

// shutdown asks the runtime to stop, closes its stdin and waits for it: the
// connection reads to the end of its output first, so the exit cannot
// close the pipe under the last answer.
func shutdown(rt protocol.Server, cmd *exec.Cmd, stdin io.Closer, conn *protocol.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, serr := rt.Shutdown(ctx, &protocol.Empty{})
	stdin.Close()
	select {
	case <-conn.Done():
	case <-ctx.Done():
		_ = cmd.Process.Kill()
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("host serve: %w", err)
	}
	if serr != nil && !errors.Is(serr, protocol.ErrClosed) {
		return fmt.Errorf("shutdown: %w", serr)
	}
	return nil
}

// ui implements protocol.Client: the runtime's requests and notifications.
// Only confirms are declared in initialize, so only they arrive among the
// requests.
type ui struct {
	confirm       func(*protocol.ConfirmParams) protocol.ConfirmResult
	out           io.Writer
	statusChanged chan struct{} // an mcp.status arrived (capacity 1)
	finalArrived  chan struct{} // a final agent.event arrived (capacity 1)

	mu     sync.Mutex
	finals map[string]*protocol.AgentEventParams // by run id
}

func newUI(o options) *ui {
	return &ui{confirm: o.Confirm, out: o.Out, statusChanged: make(chan struct{}, 1),
		finalArrived: make(chan struct{}, 1), finals: map[string]*protocol.AgentEventParams{}}
}

// syncWriter serializes the writes of several goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p whole, while no other Write runs.
func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// wake wakes the waiter on ch without blocking.
func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// waitFinal returns the final event of run id, which may have arrived
// before run.start's answer was read.
func (u *ui) waitFinal(ctx context.Context, id string) (*protocol.AgentEventParams, error) {
	for {
		u.mu.Lock()
		f := u.finals[id]
		u.mu.Unlock()
		if f != nil {
			return f, nil
		}
		select {
		case <-u.finalArrived:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for run %s: %w", id, context.Cause(ctx))
		}
	}
}

// Confirm answers ui.confirm.request with the options' Confirm.
func (u *ui) Confirm(_ context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	r := u.confirm(p)
	fmt.Fprintf(u.out, "%s: %s\n", p.Title, r.Answer)
	return &r, nil
}

// Prompt is not declared in initialize: the runtime does not send it.
func (u *ui) Prompt(context.Context, *protocol.PromptParams) (*protocol.PromptResult, error) {
	return nil, protocol.Errorf(protocol.CodeMethodNotFound, "this UI does not prompt")
}

// OpenURL is not declared in initialize: the runtime does not send it.
func (u *ui) OpenURL(context.Context, *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	return nil, protocol.Errorf(protocol.CodeMethodNotFound, "this UI does not open URLs")
}

// Elicit is not declared in initialize: the runtime does not send it.
func (u *ui) Elicit(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return nil, protocol.Errorf(protocol.CodeMethodNotFound, "this UI does not answer elicitations")
}

// MCPStatus wakes the wait for the servers.
func (u *ui) MCPStatus(context.Context, *protocol.MCPStatusParams) error {
	wake(u.statusChanged)
	return nil
}

// RunStatus is not needed: every run ends with a final agent.event.
func (u *ui) RunStatus(context.Context, *protocol.RunStatusParams) error { return nil }

// AgentEvent streams the answer, shows the tool calls and keeps each run's
// final event.
func (u *ui) AgentEvent(_ context.Context, p *protocol.AgentEventParams) error {
	switch p.Type {
	case protocol.EventTextDelta:
		fmt.Fprint(u.out, p.Text)
	case protocol.EventToolCall:
		if p.Call != nil {
			fmt.Fprintf(u.out, "→ %s/%s %s\n", p.Call.Server, p.Call.Tool, p.Call.Arguments)
		}
	case protocol.EventToolResult:
		if p.Result != nil && len(p.Result.Content) > 0 {
			fmt.Fprintf(u.out, "← %s\n", p.Result.Content[0].Text)
		}
	case protocol.EventFinal:
		u.mu.Lock()
		u.finals[p.RunID] = p
		u.mu.Unlock()
		wake(u.finalArrived)
	}
	return nil
}

// Log shows the runtime's warnings and errors.
func (u *ui) Log(_ context.Context, p *protocol.LogParams) error {
	if p.Level == "warn" || p.Level == "error" {
		fmt.Fprintf(u.out, "host serve %s: %s\n", p.Level, p.Message)
	}
	return nil
}
