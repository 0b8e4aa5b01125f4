package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// command is one entry of the help: how it is called, what it does, and an
// example to copy.
type command struct {
	usage, summary string
	examples       []string
}

// commands is the help of every command, keyed by its full name.
var commands = map[string]command{
	"host demo":     {"host demo [--auto-approve] [--no-browser] [--web] [--model NAME]", "the whole flow against servers made for the demo, on loopback, then the same in the web UI when a browser can open (--web: also with --auto-approve)", []string{"host demo --auto-approve"}},
	"host chat":     {"host chat [--model NAME | --script FILE] [--permissions FILE] [--log FILE]", "the reference terminal UI (runs host serve): prompts, /mcp, /login, permissions", []string{"host chat --model gpt-4o-mini"}},
	"host web":      {"host web [--model NAME | --script FILE] [--permissions FILE] [--log FILE] [--no-browser] [--addr 127.0.0.1:PORT]", "the reference web UI on a loopback port (runs host serve): chat, permissions, /mcp with logins and approvals, MCP Apps", []string{"host web --model gpt-4o-mini"}},
	"host serve":    {"host serve [flags]", "the runtime for a UI: JSON-RPC 2.0 over stdio (see protocol/PROTOCOL.md)", []string{"host serve --deny 'github/delete_*'"}},
	"host protocol": {"host protocol schema|generate [DIR]", "the UI protocol's JSON Schema 2020-12 document (schema prints it; generate rewrites protocol/schema/schema.json, the TypeScript client in clients/typescript and host web's web/static/protocol.js in the repository at DIR, default .)", []string{"host protocol schema > schema.json"}},
	"host mcp":      {"host mcp <command> [arguments]", "manage and test MCP servers; commands: add, list, get, remove, enable, disable, test, tools, call, import, search, update, login, logout, approve, deny, permissions (host mcp <command> --help)", []string{"host mcp list", "host mcp add --help"}},
	"host mcp add": {"host mcp add <id> [flags] -- <command> [args...]\n  host mcp add <id> [flags] <url>\n  host mcp add <id> --from-registry NAME[@VERSION] [--var K=V] [--use TYPE] [--yes]", "add a server: a command to run (stdio) or a URL (http; -t sse for legacy SSE)", []string{
		"host mcp add memory -- npx -y @modelcontextprotocol/server-memory",
		"host mcp add files -e ROOT=/tmp -- npx -y @modelcontextprotocol/server-filesystem /tmp",
		`host mcp add github https://api.githubcopilot.com/mcp/ -H 'Authorization: Bearer ${GITHUB_TOKEN}'`,
		"host mcp add docs -s project https://example.com/mcp",
		"host mcp add weather --from-registry io.github.example/weather --var CITY=Paris",
	}},
	"host mcp search":             {"host mcp search [<words>] [--registry URL] [--refresh] [--json]", "the active servers of the registries ($MCP_HOST_REGISTRY, else the official one) whose names match, with the age of the cached answer", []string{"host mcp search weather"}},
	"host mcp update":             {"host mcp update <id> [--scope project|global] [--var K=V] [--yes]", "offer the latest registry version of a server added with --from-registry: shows the old and the new command line first", []string{"host mcp update weather"}},
	"host mcp list":               {"host mcp list [--scope effective|project|global] [--status] [--json]", "the configured servers, where each is defined, and config problems; --status connects every enabled server, all at once, and shows its state", []string{"host mcp list --json", "host mcp list --status"}},
	"host mcp get":                {"host mcp get <id> [--json]", "live status and detail of one server: state, protocol, tools, token storage, last error", []string{"host mcp get memory"}},
	"host mcp remove":             {"host mcp remove <id> [--scope project|global]", "remove a server (and forget its stored credentials)", []string{"host mcp remove memory"}},
	"host mcp enable":             {"host mcp enable <id> [--scope project|global]", "turn a server on", []string{"host mcp enable memory"}},
	"host mcp disable":            {"host mcp disable <id> [--scope project|global]", "turn a server off; --scope project turns a global server off in this project only", []string{"host mcp disable memory --scope project"}},
	"host mcp test":               {"host mcp test [<id>...] [--probe TOOL [--args JSON] | --no-probe]", "connect, handshake and list tools of the named servers, or of every enabled one, all at once; one server is then probed with a real call (the tool --probe names, else its first read-only tool without arguments), so that a sandbox refusal shows before the first real use; the exit code says the result", []string{"host mcp test memory", "host mcp test files --probe list_directory --args '{\"path\":\"/home/me/notes\"}'", "host mcp test"}},
	"host mcp tools":              {"host mcp tools [<id>] [--json]", "the adapted tools: public name, server, tool, description", []string{"host mcp tools memory"}},
	"host mcp call":               {"host mcp call <id> <tool> [--args JSON] [--yes] [--json]", "call one tool (its own name, or the public name host mcp tools lists first), after the same permission check the runtime makes", []string{`host mcp call memory read_graph --args '{}' --yes`}},
	"host mcp import":             {"host mcp import [--from claude-desktop|claude-code|codex|cursor|gemini|vscode|FILE] [--scope project|global] [--replace] [--dry-run]", "import servers from another host's file; secrets become ${VAR} references", []string{"host mcp import --from claude-desktop --dry-run"}},
	"host mcp login":              {"host mcp login <id> [--no-browser]", "OAuth login: asks first, then the browser (or paste the redirect back)", []string{"host mcp login github"}},
	"host mcp logout":             {"host mcp logout <id> [--forget-client]", "forget the server's tokens (and its client registration)", []string{"host mcp logout github"}},
	"host mcp approve":            {"host mcp approve <id>", "let a server that a project file defines (or the managed policy forces) start", []string{"host mcp approve memory"}},
	"host mcp deny":               {"host mcp deny <id>", "keep a server that a project file defines (or the managed policy forces) off", []string{"host mcp deny memory"}},
	"host mcp permissions":        {"host mcp permissions [list] [<id>] [--json]\n  host mcp permissions revoke <id> [<tool>] | --all", "the remembered \"always allow\" answers (server, tool, scope, since when), and taking them back: the next call asks again, also in a running host serve", []string{"host mcp permissions", "host mcp permissions revoke github create_issue"}},
	"host mcp permissions list":   {"host mcp permissions [list] [<id>] [--json] [--permissions FILE]", "the remembered \"always allow\" answers: server, tool, scope (one tool pinned to its definition, or every tool of the server), since when", []string{"host mcp permissions list github"}},
	"host mcp permissions revoke": {"host mcp permissions revoke <id> [<tool>] [--json] [--permissions FILE]\n  host mcp permissions revoke --all", "take back remembered answers: one tool's, a server's, or all; the next call asks again, also in a running host serve", []string{"host mcp permissions revoke github create_issue", "host mcp permissions revoke github"}},
}

// printHelp prints the help of fs's command: usage, summary, examples and
// its flags.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	printCommandHelp(w, fs.Name())
	// A short flag and its long form share one usage text: one line.
	var order []string
	names := map[string][]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if _, seen := names[f.Usage]; !seen {
			order = append(order, f.Usage)
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		names[f.Usage] = append(names[f.Usage], dash+f.Name)
	})
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "\nFlags:")
	for _, u := range order {
		n := names[u]
		sort.Slice(n, func(i, j int) bool { return len(n[i]) < len(n[j]) })
		f := fs.Lookup(strings.TrimLeft(n[0], "-"))
		arg, text := flag.UnquoteUsage(f)
		line := "  " + strings.Join(n, ", ")
		if arg != "" {
			line += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			text += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, text)
	}
}

// printCommandHelp prints usage, summary and examples of a command by its
// full name; it reports false for a name it does not know.
func printCommandHelp(w io.Writer, name string) bool {
	cmd, ok := commands[name]
	if !ok {
		return false
	}
	fmt.Fprintf(w, "Usage:\n  %s\n\n%s\n\nExamples:\n", cmd.usage, cmd.summary)
	for _, ex := range cmd.examples {
		fmt.Fprintf(w, "  %s\n", ex)
	}
	return true
}
