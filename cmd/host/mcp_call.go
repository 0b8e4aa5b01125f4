package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcp-host/mcp-host/internal/suggest"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"
)

func (c *cli) call(args []string) int {
	fs := newFlagSet("call", c.stderr)
	argsJSON := fs.String("args", "{}", "tool arguments as a JSON object")
	yes := fs.Bool("yes", false, "allow the call without asking")
	asJSON := fs.Bool("json", false, "print the raw result as JSON")
	var allow, deny multiFlag
	fs.Var(&allow, "allow", "allow rule server/tool (globs), repeatable, as for host serve")
	fs.Var(&deny, "deny", "deny rule server/tool (globs), repeatable; wins over --allow, --yes and remembered answers")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	var rules callRules
	var err error
	if rules.allow, err = parseRules("--allow", allow); err != nil {
		return c.failf(exitUsage, "call: %v", err)
	}
	if rules.deny, err = parseRules("--deny", deny); err != nil {
		return c.failf(exitUsage, "call: %v", err)
	}
	if len(pos) != 2 {
		return c.failf(exitUsage, "call: want <server-id> <tool>")
	}
	id, tool := pos[0], pos[1]
	if !adapter.SafeName(tool) {
		// Never offered, so never called: the name one reads is not the
		// name that would run.
		return c.failf(exitUsage, "call: tool names with control or invisible characters are never called (stripped, this one reads %q)", termsafe.Line(tool))
	}
	var obj map[string]any
	if err = json.Unmarshal([]byte(*argsJSON), &obj); err != nil {
		return c.failf(exitUsage, "call: --args must be a JSON object: %v", err)
	}
	e, _, err := c.entry(id)
	if err != nil {
		return c.failf(exitUsage, "call: %v", err)
	}
	if !e.Config.IsEnabled() {
		return c.failf(exitFailure, "call: server %q is disabled (turn it on with: host mcp enable %s)", id, id)
	}
	m, st := c.connectOne(e, connectHow{listCache: true})
	defer m.Close()
	if st.State != runtime.StateReady {
		return c.failf(notReadyExit(st), "call: %s", notReady(st))
	}
	tools, err := m.Tools(id)
	if err != nil {
		return c.failf(exitFailure, "call: %v", err)
	}
	def, known := findTool(id, tool, tools)
	if def == nil {
		if s := suggest.Closest(tool, known); s != "" {
			return c.failf(exitUsage, "call: server %q has no tool %q: did you mean %q? (see: host mcp tools %s)", id, tool, s, id)
		}
		return c.failf(exitUsage, "call: server %q has no tool %q (see: host mcp tools %s)", id, tool, id)
	}
	tool = def.Name
	caller := serverTool{m: m, server: id}
	t, err := adapter.New(id, def, caller, adapter.Options{})
	if err != nil {
		return c.failf(exitFailure, "call: %v", err)
	}
	gate, err := c.callGate(e, *yes, rules)
	if err != nil {
		return c.failf(exitFailure, "call: %v", err)
	}
	v, err := gate.Check(context.Background(), t, json.RawMessage(*argsJSON))
	if err != nil {
		return c.failf(exitDenied, "call: %v", err)
	}
	if !v.Allow {
		if v.By == permission.ByDenyRule {
			return c.failf(exitDenied, "call: %s (--deny)", v.Reason)
		}
		if v.By == permission.ByPolicy {
			return c.failf(exitDenied, "call: refusing to call without confirmation: no terminal to ask on (pass --yes to allow)")
		}
		return c.failf(exitDenied, "call: %s", v.Reason)
	}
	// The raw result, not the model's view of it: the CLI prints MCP content.
	res, err := caller.CallTool(context.Background(), tool, json.RawMessage(*argsJSON))
	if err != nil {
		return c.failf(exitFailure, "call: %v", err)
	}
	if *asJSON {
		c.writeJSON(res)
	} else {
		printResult(c.stdout, res)
	}
	if res.IsError {
		// A refusal of the sandbox says so, with the grant (the server
		// only says EACCES).
		if h := m.SandboxHint(id, resultText(res)); h != "" {
			fmt.Fprintln(c.stderr, termsafe.LineMax(h, maxErrorLine))
		}
		return exitFailure
	}
	return exitOK
}

// findTool returns the tool of server id named name: its own name, or the
// public name host mcp tools lists first (and the model sees). Otherwise
// it returns nil and the server's tool names, for a suggestion.
func findTool(id, name string, tools []*mcp.Tool) (*mcp.Tool, []string) {
	known := make([]string, 0, len(tools))
	for _, t := range tools {
		if t.Name == name || adapter.PublicName(id, t.Name) == name {
			return t, nil
		}
		known = append(known, t.Name)
	}
	return nil, known
}

// serverTool calls tools of one server through the manager; it is the
// adapter.Caller of the tool the gate checks.
type serverTool struct {
	m      *runtime.Manager
	server string
}

// CallTool calls tool on the server.
func (s serverTool) CallTool(ctx context.Context, tool string, args any) (*mcp.CallToolResult, error) {
	return s.m.CallTool(ctx, s.server, tool, args)
}

// callRules are the --deny and --allow rules of one `host mcp call`.
type callRules struct{ deny, allow []permission.Rule }

// callGate is the permission gate of `host mcp call`, deciding as it does
// for host serve and host chat: deny rules, then allow rules (--deny and
// --allow, as host serve takes them), trust from the global config,
// "always allow" answers remembered in the permissions file next to the
// global config, and a confirmation on the terminal when there is one.
// --yes answers the confirmation with allow once; a deny rule refuses the
// call before any of that. Without a terminal and without --yes, only
// rules, trust and remembered answers can allow a call.
func (c *cli) callGate(e config.ServerEntry, yes bool, rules callRules) (*permission.Gate, error) {
	opts := permission.Options{
		Deny:              rules.deny,
		Allow:             rules.allow,
		Trusted:           func(string) bool { return e.Trusted() },
		AutoAllowReadOnly: func(string) bool { return e.AutoAllowReadOnly() },
		Identity:          func(string) permission.Identity { return runtime.IdentityOf(e) },
		NonInteractive:    permission.PolicyRulesOnly,
		Warn:              func(msg string) { c.warnf("%s", msg) },
	}
	store, err := permission.OpenStore(defaultPermissions(c.global))
	if err != nil {
		c.warnf("%v (remembered answers are not used)", err)
	} else {
		opts.Store = store
	}
	switch {
	case yes:
		opts.Confirmer = permission.ConfirmFunc(func(context.Context, *permission.Request) (permission.Response, error) {
			return permission.Response{Answer: permission.AllowOnce}, nil
		})
	case c.interactive():
		opts.Confirmer = permission.ConfirmFunc(c.confirmOnTerminal)
	}
	return permission.New(opts)
}

// interactive reports whether stdin is a terminal a person can answer on.
func (c *cli) interactive() bool {
	f, ok := c.stdin.(*os.File)
	return ok && isTerminal(f)
}

// confirmOnTerminal is the CLI's permission.Confirmer: it shows the gate's
// request as [permission.Request.Text] renders it (the host's own record
// of the call first, the server's title, description and hints labelled
// as its claims, all terminal-safe) and reads the answers host chat
// offers: once, always this tool, always this server, deny, deny with a
// reason. Anything else (an empty line too) denies; y still means once.
func (c *cli) confirmOnTerminal(_ context.Context, req *permission.Request) (permission.Response, error) {
	fmt.Fprintf(c.stderr, "%s\nAllow? [o]nce / always this [t]ool / always this [s]erver / [d]eny / deny with [r]eason [o/t/s/r/D] ", req.Text())
	line, _ := c.readLine()
	switch strings.ToLower(line) {
	case "o", "once", "y", "yes":
		return permission.Response{Answer: permission.AllowOnce}, nil
	case "t":
		return permission.Response{Answer: permission.AllowTool}, nil
	case "s":
		return permission.Response{Answer: permission.AllowServer}, nil
	case "r":
		fmt.Fprint(c.stderr, "Reason: ")
		reason, _ := c.readLine()
		return permission.Response{Answer: permission.DenyWithReason, Reason: reason}, nil
	}
	return permission.Response{Answer: permission.Deny}, nil
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// printResult shows a tool result: every string in it is the server's,
// rendered for the terminal (text through result, URIs and MIME types as
// one line, JSON through jsonSafe).
func printResult(w io.Writer, res *mcp.CallToolResult) {
	if res.IsError {
		fmt.Fprintln(w, "tool error:")
	}
	for _, ct := range res.Content {
		switch v := ct.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, result(v.Text))
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", termsafe.Line(v.MIMEType), len(v.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", termsafe.Line(v.MIMEType), len(v.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s]\n", termsafe.Strip(v.URI))
		case *mcp.EmbeddedResource:
			if v.Resource != nil {
				if v.Resource.Text != "" {
					fmt.Fprintf(w, "[resource %s]\n%s\n", termsafe.Strip(v.Resource.URI), result(v.Resource.Text))
				} else {
					fmt.Fprintf(w, "[resource %s, %d bytes]\n", termsafe.Strip(v.Resource.URI), len(v.Resource.Blob))
				}
			}
		default:
			b, _ := json.Marshal(ct)
			fmt.Fprintln(w, string(jsonSafe(b)))
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintf(w, "structured content:\n%s\n", jsonSafe(b))
	}
}

// notReady says in one line why a server cannot take a call: its state,
// and the first line of its last error when there is one.
func notReady(st runtime.Status) string {
	msg := fmt.Sprintf("server %q is %s", st.ID, st.State)
	if e := firstLine(ownError(st.ID, st.LastError)); e != "" {
		msg += ": " + truncate(e, maxErrorLine)
	}
	return msg
}

// ownError is a server's error where the line already names the server:
// without the runtime's leading `server "<id>": `, so it says it once.
func ownError(id, e string) string {
	return strings.TrimPrefix(e, fmt.Sprintf("server %q: ", id))
}

// notReadyExit is the exit code of a call to a server that is not ready:
// never 0, whatever state it settled in.
func notReadyExit(st runtime.Status) int {
	if code := exitFor(st); code != exitOK {
		return code
	}
	return exitFailure
}
