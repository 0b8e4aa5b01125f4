package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
	"github.com/mcp-host/mcp-host/termsafe"
)

func (c *cli) list(args []string) int {
	fs := newFlagSet("list", c.stderr)
	scope := fs.String("scope", "effective", "effective, project or global")
	asJSON := fs.Bool("json", false, "JSON output")
	status := fs.Bool("status", false, "connect every enabled server (all at once) and show its state")
	if _, code := c.parseFlags(fs, args); code >= 0 {
		return code
	}
	eff, err := c.load()
	if err != nil {
		return c.failf(exitUsage, "list: %v", err)
	}
	var states map[string]runtime.Status
	if *status {
		var m *runtime.Manager
		m, states = c.connectAll(eff.Servers, *scope)
		defer m.Close()
	}
	rows := []jsonServer{}
	targets := map[string]string{}
	for _, e := range eff.Servers {
		if *scope != "effective" && e.Source != *scope {
			continue
		}
		r := jsonServer{ID: e.ID, Transport: e.Config.TransportName(), Source: e.Source, Enabled: e.Config.IsEnabled(),
			ConfigPath: e.Path, HeaderNames: keys(e.Config.Headers), EnvNames: keys(e.Config.Env)}
		setTarget(e.Config, &r.URL, &r.Command)
		targets[e.ID] = describeTarget(e.Config)
		if e.Err != nil {
			r.Error = e.Err.Error()
		}
		if b := e.Blocked; b != nil {
			r.State, r.LastError = string(runtime.StateBlockedByPolicy), b.Error()
			r.Policy = &protocol.PolicyStatus{File: b.File, Rule: b.Rule, Reason: b.Reason}
		}
		if e.NeedsApproval() {
			r.Approval = approvalLabel(c.approvals(), e.DefinedPath, e.ID, e.Definition())
		}
		r.Warnings = e.Warnings()
		if st, ok := states[e.ID]; ok {
			setState(&r, st)
		}
		rows = append(rows, r)
	}
	if *asJSON {
		return c.writeJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(c.stdout, "no MCP servers configured (global %s, project %s)\n", c.global, c.project)
		return exitOK
	}
	if *status {
		return c.printStatusList(rows, targets)
	}
	// A project file is untrusted: its ids, targets and the errors that
	// quote it are rendered for the terminal (describeTarget already is).
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTRANSPORT\tSOURCE\tENABLED\tTARGET")
	for _, r := range rows {
		id := termsafe.Line(r.ID)
		target := targets[r.ID]
		if r.Approval != "" && r.Approval != "approved" {
			target = fmt.Sprintf("NOT APPROVED (%s; host mcp approve %s): %s", r.Approval, id, target)
		}
		if r.Error != "" {
			target = "INVALID: " + termsafe.LineMax(r.Error, maxErrorLine)
		}
		if r.Policy != nil {
			target = "BLOCKED_BY_POLICY: " + termsafe.LineMax(r.Policy.Rule+": "+r.Policy.Reason, maxErrorLine) + " (" + termsafe.Line(r.Policy.File) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", id, termsafe.Line(r.Transport), r.Source, r.Enabled, target)
	}
	tw.Flush()
	for _, r := range rows {
		for _, w := range r.Warnings {
			c.warnf("%s: %s", r.ID, w)
		}
	}
	return exitOK
}

func (c *cli) get(args []string) int {
	fs := newFlagSet("get", c.stderr)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "get: want one server id")
	}
	e, _, err := c.entry(pos[0])
	if err != nil {
		return c.failf(exitUsage, "get: %v", err)
	}
	m, st := c.connectOne(e, connectHow{})
	defer m.Close()
	if *asJSON {
		d := jsonDetail{
			ServerDetail: protocol.ServerDetail{ServerStatus: serve.Status(st), Stderr: st.Stderr, ServerLog: st.ServerLog, ToolList: []protocol.ToolInfo{}},
			ConfigPath:   e.Path, HeaderNames: keys(e.Config.Headers), EnvNames: keys(e.Config.Env),
		}
		if d.Auth == nil && c.storage(st) != "" && e.Config.TransportName() != "stdio" {
			d.Auth = &protocol.AuthStatus{Storage: c.storage(st)}
		}
		setTarget(e.Config, &d.URL, &d.Command)
		d.Instructions, d.InstructionsOff = m.Instructions(e.ID)
		d.Environment = serve.EnvironmentNames(e.Config)
		if st.State == runtime.StateReady {
			if tools, err := m.Tools(e.ID); err == nil {
				for _, t := range tools {
					if adapter.SafeName(t.Name) {
						d.ToolList = append(d.ToolList, serve.ToolInfo(e.ID, adapter.PublicName(e.ID, t.Name), t))
					}
				}
			}
		}
		c.writeJSON(d)
		return exitFor(st)
	}
	// Every value may come from the server or a project file: each is
	// rendered as one terminal-safe line.
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	line := func(k, v string) {
		if v = termsafe.LineMax(v, maxErrorLine); v != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, v)
		}
	}
	line("id", st.ID)
	line("state", string(st.State))
	line("transport", st.Transport+map[bool]string{true: " (fell back from http)"}[st.FellBackToSSE])
	line("source", fmt.Sprintf("%s (%s)", st.Source, e.Path))
	line("enabled", fmt.Sprint(st.Enabled))
	line("target", describeTarget(e.Config))
	if r := e.Config.Registry; r != nil {
		line("registry", fmt.Sprintf("%s@%s (%s from %s; host mcp update %s)", r.Name, r.Version, r.Package, r.URL, st.ID))
	}
	line("headers", strings.Join(keys(e.Config.Headers), ", "))
	if n := serve.EnvironmentNames(e.Config); n != nil {
		// Names only, never values: what the server gets of the
		// environment (not the host's whole one).
		line("env (base)", strings.Join(n.Base, ", "))
		line("env", strings.Join(n.Env, ", "))
		line("env_vars", strings.Join(n.EnvVars, ", "))
		line("env_vars unset", strings.Join(n.Unset, ", "))
	} else {
		line("env", strings.Join(keys(e.Config.Env), ", "))
	}
	if sb := st.Sandbox; sb != nil {
		// One line: the state, then what the policy allows.
		line("sandbox", strings.TrimPrefix(sb.String(), "sandbox: ")+"; "+sb.Summary)
		for _, p := range sb.Protections {
			line("protection", p)
		}
	}
	if st.ServerName != "" {
		line("server", st.ServerName+" "+st.ServerVersion)
	}
	line("protocol", st.ProtocolVersion)
	line("session", st.SessionID)
	if st.State == runtime.StateReady {
		line("tools", fmt.Sprint(st.Tools))
	}
	if !st.LastConnectedAt.IsZero() {
		line("last connected", st.LastConnectedAt.Format(time.RFC3339))
	}
	line("auth", st.Auth)
	if e.Config.TransportName() != "stdio" {
		line("tokens kept in", c.storage(st))
	}
	if a := st.Approval; a != nil {
		line("approval", fmt.Sprintf("%s (digest %.12s…)", a.Decision, a.Digest))
		line("defined in", a.File)
		for _, f := range a.Fields {
			line("definition", f)
		}
	}
	for _, w := range st.Warnings {
		line("warning", w)
	}
	if p := st.Policy; p != nil {
		line("policy file", p.File)
		line("policy rule", p.Rule)
		line("policy reason", p.Reason)
	}
	line("last error", st.LastError)
	tw.Flush()
	if st.Stderr != "" {
		fmt.Fprintf(c.stdout, "stderr (tail):\n%s\n", indent(strings.TrimRight(st.Stderr, "\n")))
	}
	if st.ServerLog != "" {
		fmt.Fprintf(c.stdout, "server log (tail):\n%s\n", indent(strings.TrimRight(st.ServerLog, "\n")))
	}
	if text, off := m.Instructions(e.ID); text != "" {
		head := "instructions (the server's text, given to the model):"
		if off {
			head = "instructions (the server's text; left out of the model's context by \"instructions\": false):"
		}
		fmt.Fprintf(c.stdout, "%s\n%s\n", head, indent(termsafe.TextMax(text, 4096)))
	}
	return exitFor(st)
}

func (c *cli) tools(args []string) int {
	fs := newFlagSet("tools", c.stderr)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 1 {
		return c.failf(exitUsage, "tools: want at most one server id")
	}
	eff, err := c.load()
	if err != nil {
		return c.failf(exitUsage, "tools: %v", err)
	}
	var entries []config.ServerEntry
	for _, e := range eff.Servers {
		if len(pos) == 1 && e.ID != pos[0] {
			continue
		}
		entries = append(entries, e)
	}
	if len(pos) == 1 && len(entries) == 0 {
		return c.failf(exitUsage, "tools: no server %q", pos[0])
	}
	m := runtime.NewManager(c.managerOptions())
	defer m.Close()
	m.Apply(entries)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sts, _ := m.WaitSettled(ctx)
	rows := []protocol.ToolInfo{}
	code = exitOK
	for _, st := range sts {
		if st.State != runtime.StateReady {
			if st.State != runtime.StateDisabled {
				fmt.Fprintf(c.stderr, "%s\n", message("%s: %s: %s", st.ID, st.State, st.LastError))
				code = exitFailure
			}
			continue
		}
		tools, err := m.Tools(st.ID)
		if err != nil {
			fmt.Fprintf(c.stderr, "%s\n", message("%s: %v", st.ID, err))
			code = exitFailure
			continue
		}
		for _, t := range tools {
			// The adapter never offers a tool whose name holds controls or
			// invisible characters (the user would read one name and call
			// another); neither does this list.
			if !adapter.SafeName(t.Name) {
				c.warnf("%s: left out a tool whose name has control or invisible characters (stripped, it reads %q)", st.ID, termsafe.Line(t.Name))
				continue
			}
			rows = append(rows, serve.ToolInfo(st.ID, adapter.PublicName(st.ID, t.Name), t))
		}
	}
	if *asJSON {
		c.writeJSON(rows)
		return code
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tORIGIN\tDESCRIPTION")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s/%s\t%s\n", r.PublicName, termsafe.Line(r.Server), r.Tool, truncate(firstLine(r.Description), 80))
	}
	tw.Flush()
	return code
}

// storage names where tokens are kept for a server's status: its own
// storage line, else the store this command opened (a server not logged
// in yet has none, yet the keyring's state is worth knowing).
func (c *cli) storage(st runtime.Status) string {
	switch {
	case st.AuthStorage != "":
		return st.AuthStorage
	case c.store != nil:
		return c.store.Describe()
	}
	return ""
}
