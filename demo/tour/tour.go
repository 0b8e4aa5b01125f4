// Package tour is `host demo`: it starts the demo servers on loopback, runs
// the real runtime (`host serve`, in process, over the UI protocol) against
// them, and plays a UI that shows each step as it happens: discovery, the
// consent prompt, the browser login (or the printed URL and paste-back),
// tools listed, a tool call behind the permission prompt, an agent turn and
// the /mcp table.
//
// Like any UI it reaches the runtime only through runtime/serve and the
// protocol; it must not import cmd/.
package tour

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
	demo "github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
	"github.com/mcp-host/mcp-host/termsafe"
)

// Options configure a [Run].
type Options struct {
	// Out receives the steps, for a person to follow.
	Out io.Writer
	// In supplies the person's answers (consent, permission, a pasted
	// URL) when AutoApprove is off.
	In io.Reader
	// AutoApprove answers every question with yes and completes the login
	// without a browser: for unattended runs and CI.
	AutoApprove bool
	// NoBrowser prints the login URL and asks for the pasted redirect even
	// where a browser could open.
	NoBrowser bool
	// Provider is the model of the agent turn; nil plays a scripted turn.
	Provider  core.Provider
	ModelName string
	// StdioCommand is the argv that starts the demo's local stdio MCP
	// server (the host binary's hidden demo-stdio-server command).
	StdioCommand []string
	// Dir holds the demo's config and permissions files; it must exist.
	Dir string
	// Logger receives the runtime's logs; nil discards them.
	Logger *slog.Logger
}

// Run plays the whole demo and returns when it is done (nil) or failed.
func Run(ctx context.Context, o Options) error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	t := &tour{o: o, in: bufio.NewReader(orEmpty(o.In)), ui: &tourUI{}}
	t.ui.t = t
	return t.run(ctx)
}

func orEmpty(r io.Reader) io.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	return r
}

type tour struct {
	o    Options
	in   *bufio.Reader
	ui   *tourUI
	rt   protocol.Server
	step int

	mu sync.Mutex // guards writes to Out
	// askMu makes the questions one at a time and guards reading: the
	// line being read from In, kept when its question was withdrawn.
	askMu   sync.Mutex
	reading chan lineRead
}

// say prints a line of the tour. What it shows quotes the runtime, the
// demo servers and the model, none of which the tour trusts: the whole
// output goes through termsafe (lines kept, nothing cut), and callers put
// one-line values through termsafe.Line for the layout.
func (t *tour) say(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(t.o.Out, screen(fmt.Sprintf(format, args...)))
}

// screen renders text for the terminal: stripped, lines kept, not cut.
func screen(s string) string {
	return termsafe.Sanitize(s, termsafe.Options{MultiLine: true, Max: -1})
}

func (t *tour) stepf(format string, args ...any) {
	t.step++
	t.say("\n== %d. %s", t.step, fmt.Sprintf(format, args...))
}

// ask prints question and reads a line; with AutoApprove it answers auto.
func (t *tour) ask(question, auto string) (string, error) {
	return t.askCtx(context.Background(), question, auto)
}

// askCtx is ask for a question the runtime may withdraw (ctx ends): the
// line being read then answers the next question.
func (t *tour) askCtx(ctx context.Context, question, auto string) (string, error) {
	t.askMu.Lock()
	defer t.askMu.Unlock()
	t.mu.Lock()
	question = screen(question)
	if t.o.AutoApprove {
		fmt.Fprintf(t.o.Out, "%s %s   (--auto-approve)\n", question, screen(auto))
		t.mu.Unlock()
		return auto, nil
	}
	fmt.Fprintf(t.o.Out, "%s ", question)
	t.mu.Unlock()
	if t.reading == nil {
		ch := make(chan lineRead, 1)
		t.reading = ch
		go func() {
			line, err := t.in.ReadString('\n')
			ch <- lineRead{line, err}
		}()
	}
	select {
	case l := <-t.reading:
		t.reading = nil
		if l.err != nil && l.line == "" {
			return "", fmt.Errorf("reading your answer: %w (run with --auto-approve for an unattended demo)", l.err)
		}
		return strings.TrimSpace(l.line), nil
	case <-ctx.Done():
		t.say("")
		return "", ctx.Err()
	}
}

// lineRead is one line read from In.
type lineRead struct {
	line string
	err  error
}

func (t *tour) run(ctx context.Context) error {
	t.stepf("Start the demo servers on loopback")
	env, err := demo.Start(ctx, demo.Options{AutoApprove: t.o.AutoApprove, Logger: t.o.Logger})
	if err != nil {
		return fmt.Errorf("starting the demo servers: %w", err)
	}
	defer env.Close()
	t.say("authorization server  %s  (dynamic client registration, PKCE, consent page)", env.IssuerURL)
	t.say("protected MCP server  %s  (needs an OAuth token for that resource)", env.MCPURL)
	t.say("local stdio server    %s", strings.Join(t.o.StdioCommand, " "))

	configPath := filepath.Join(t.o.Dir, "config.json")
	cfg := map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"notes": map[string]any{"transport": "http", "url": env.MCPURL},
		"local": map[string]any{"transport": "stdio", "command": t.o.StdioCommand[0], "args": t.o.StdioCommand[1:]},
	}}}
	data, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(configPath, data, 0o600); err != nil {
		return err
	}
	t.say("config written to     %s", configPath)

	// The runtime, in process, over the protocol a desktop UI uses.
	model := &lateProvider{}
	provider, modelName := core.Provider(model), "scripted demo turn"
	if t.o.Provider != nil {
		provider, modelName = t.o.Provider, t.o.ModelName
	}
	uiIn, rtOut := io.Pipe()
	rtIn, uiOut := io.Pipe()
	serveDone := make(chan error, 1)
	go func() {
		serveDone <- serve.Serve(ctx, rtIn, rtOut, serve.ServeOptions{
			Config:         config.LoadOptions{GlobalPath: configPath},
			Provider:       provider,
			ModelName:      modelName,
			Permissions:    filepath.Join(t.o.Dir, "permissions.json"),
			ConfirmTimeout: 10 * time.Minute,
			Version:        "demo",
			WatchInterval:  -1,
			Logger:         t.o.Logger,
		})
		rtOut.Close()
	}()
	conn := protocol.NewConn(uiIn, uiOut, protocol.ClientHandler(t.ui), protocol.ConnOptions{Logger: t.o.Logger})
	go conn.Run(ctx)
	t.rt = protocol.NewServerCaller(conn)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		t.rt.Shutdown(sctx, &protocol.Empty{})
		uiOut.Close()
		<-serveDone
	}()

	t.stepf("Start the runtime (host serve) and connect to both servers")
	init, err := t.rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version,
		ClientInfo:      protocol.Implementation{Name: "host demo"},
		// The demo opens the login URL itself only when it auto-approves;
		// otherwise the runtime opens the system browser, or asks for the
		// pasted redirect where it cannot.
		Capabilities: protocol.UICapabilities{Confirm: true, Prompt: true, OpenURL: t.o.AutoApprove},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	t.say("runtime %s speaks protocol %s; model: %s", termsafe.Line(init.ServerInfo.Name), termsafe.Line(init.ProtocolVersion), termsafe.Line(init.Capabilities.Model))
	sts, err := t.settle(ctx, func(st protocol.ServerStatus) bool {
		return st.ID == "notes" && (st.Status == protocol.StateAuthRequired || st.Status == protocol.StateReady) ||
			st.ID == "local" && st.Status == protocol.StateReady
	})
	if err != nil {
		return err
	}
	t.table(sts)

	t.stepf("Discovery: the protected server answered 401, so it waits for a login (nothing opened without asking)")
	if st := find(sts, "notes"); st.Status == protocol.StateAuthRequired {
		t.say("notes: %s — %s", termsafe.Line(st.Status), authDetail(st))
		t.stepf("Log in to notes: consent first, then the browser, then the loopback callback")
		lctx, cancel := context.WithTimeout(ctx, 6*time.Minute)
		_, err := t.rt.MCPLogin(lctx, &protocol.LoginParams{ID: "notes", NoBrowser: t.o.NoBrowser})
		cancel()
		if err != nil {
			return err // it names the server and the login already
		}
		t.say("logged in; %d client registration(s) at the authorization server", env.Registrations())
	}
	sts, err = t.settle(ctx, func(st protocol.ServerStatus) bool { return st.Status == protocol.StateReady })
	if err != nil {
		return err
	}
	t.table(sts)

	t.stepf("Tools, as the model sees them (hashed public names, origin-prefixed)")
	tl, err := t.rt.ToolsList(ctx, &protocol.ToolsListParams{})
	if err != nil {
		return err
	}
	t.tools(tl.Tools)

	t.stepf("A direct tool call, behind the permission prompt")
	call, err := demoCall(tl.Tools)
	if err != nil {
		return err
	}
	res, err := t.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: call.server, Tool: call.tool, Arguments: call.args})
	if err != nil {
		return fmt.Errorf("tool.call %s/%s: %w", call.server, call.tool, err)
	}
	t.say("result (allowed by %s): %s", res.DecidedBy, resultText(res.Result))

	t.stepf("An agent turn (%s)", modelName)
	if t.o.Provider == nil {
		steps, err := demoScript(tl.Tools)
		if err != nil {
			return err
		}
		model.set(scripted.New(steps...))
	}
	prompt := "What is the weather in Paris, and what time is it here? Note the answer."
	t.say("> %s", prompt)
	run, err := t.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: prompt})
	if err != nil {
		return err
	}
	final, err := t.ui.waitRun(ctx, run.RunID)
	if err != nil {
		return err
	}
	t.say("\nrun %s: %s", run.RunID, final.Status)
	if final.Status != protocol.RunCompleted {
		return fmt.Errorf("the agent turn ended %s: %s", termsafe.Line(final.Status), termsafe.LineMax(final.Error, 1000))
	}

	t.stepf("/mcp")
	l, err := t.rt.MCPList(ctx, &protocol.Empty{})
	if err != nil {
		return err
	}
	t.table(l.Servers)
	t.say("\nDone. Next: add your own servers with `host mcp add`, then `host chat`.")
	return nil
}

// settle waits until every server satisfies ok, showing progress.
func (t *tour) settle(ctx context.Context, ok func(protocol.ServerStatus) bool) ([]protocol.ServerStatus, error) {
	deadline := time.Now().Add(90 * time.Second)
	last := ""
	for {
		l, err := t.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			return nil, err
		}
		all := true
		var states []string
		for _, st := range l.Servers {
			states = append(states, termsafe.Line(st.ID)+": "+termsafe.Line(st.Status))
			if st.Status == protocol.StateError {
				return nil, fmt.Errorf("server %s: %s", termsafe.Line(st.ID), termsafe.LineMax(st.LastError, 1000))
			}
			if !ok(st) {
				all = false
			}
		}
		if all {
			return l.Servers, nil
		}
		if s := strings.Join(states, ", "); s != last {
			t.say("… %s", s)
			last = s
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("servers did not settle: %s", last)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func find(sts []protocol.ServerStatus, id string) protocol.ServerStatus {
	for _, st := range sts {
		if st.ID == id {
			return st
		}
	}
	return protocol.ServerStatus{}
}

// authDetail is a server's auth sentence as one terminal-safe line.
func authDetail(st protocol.ServerStatus) string {
	if st.Auth == nil {
		return "-"
	}
	return termsafe.Line(st.Auth.Detail)
}

// table prints the /mcp view, every cell one terminal-safe line.
func (t *tour) table(sts []protocol.ServerStatus) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tw := tabwriter.NewWriter(t.o.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTRANSPORT\tSTATE\tTOOLS\tPROTOCOL\tAUTH")
	for _, st := range sts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", termsafe.Line(st.ID), termsafe.Line(st.Transport), termsafe.Line(st.Status), st.Tools, dash(termsafe.Line(st.ProtocolVersion)), authDetail(st))
	}
	tw.Flush()
}

// tools prints the tools as the model sees them: public name, origin and
// the first line of the server's description, each one terminal-safe line.
func (t *tour) tools(tools []protocol.ToolInfo) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tw := tabwriter.NewWriter(t.o.Out, 0, 0, 2, ' ', 0)
	for _, tool := range tools {
		fmt.Fprintf(tw, "%s\t%s/%s\t%s\n", termsafe.Line(tool.PublicName), termsafe.Line(tool.Server), termsafe.Line(tool.Tool), firstLine(tool.Description))
	}
	tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// firstLine is the first line of s, terminal-safe, at most 70 runes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return termsafe.LineMax(s, 70)
}

// resultText renders a tool result as one terminal-safe line.
func resultText(r protocol.ToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, termsafe.Strip(c.Text))
		} else {
			parts = append(parts, "["+termsafe.Line(c.Type)+"]")
		}
	}
	s := strings.Join(parts, " ")
	if r.IsError {
		s = "error: " + s
	}
	return s
}

// lateProvider is the scripted model, set once the tool names are known.
type lateProvider struct {
	mu sync.Mutex
	p  core.Provider
}

func (l *lateProvider) set(p core.Provider) {
	l.mu.Lock()
	l.p = p
	l.mu.Unlock()
}

func (l *lateProvider) Stream(ctx context.Context, req core.Request, onDelta func(core.Delta)) (*core.Response, error) {
	l.mu.Lock()
	p := l.p
	l.mu.Unlock()
	if p == nil {
		return nil, errors.New("demo: no model yet")
	}
	return p.Stream(ctx, req, onDelta)
}
