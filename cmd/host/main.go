// Command host is mcp-host: an OAuth-first MCP host runtime. It runs the
// runtime for a UI (serve), and manages and tests MCP servers from the
// command line (mcp ...). Run "host help" for the commands.
//
// It is wiring only: flags, output and exit codes around the packages that
// do the work (runtime/serve, runtime, runtime/config, runtime/permission,
// chat, demo/tour), so that every behaviour a test could check is reachable
// through a package. Nothing may import it (see docs/ARCHITECTURE.md).
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes that scripts can rely on.
const (
	exitOK           = 0
	exitFailure      = 1 // the server or the operation failed
	exitUsage        = 2 // bad command line or configuration
	exitAuthRequired = 3 // the server needs a login first
	exitDenied       = 4 // a tool call was not allowed, a project server is not approved, or the managed policy forbids it
)

const usage = `host — an OAuth-first MCP host runtime

Usage:
  host demo [--auto-approve] [--no-browser] [--web] [--model NAME]
                                     the whole flow against servers made for the demo, on loopback
  host chat [--model NAME | --script FILE]
                                     the reference terminal UI (runs host serve): prompts, /mcp, /login, permissions
  host web [--model NAME | --script FILE] [--no-browser]
                                     the reference web UI on a loopback port (runs host serve): chat, /mcp, logins, apps
  host serve [flags]                 the runtime for a UI: JSON-RPC 2.0 over stdio (see protocol/PROTOCOL.md)
  host mcp <command> [arguments]     manage and test MCP servers
  host protocol schema               the UI protocol as JSON Schema 2020-12 (protocol/schema/schema.json)
  host completion bash|zsh|fish|powershell
                                     a shell completion script (for example: source <(host completion bash))
  host help [<command>]              this text, or one command's help (also: host <command> --help)
  host --version                     the version

MCP commands (each takes --help):
  add <id> [flags] -- <command> [args...]
                                    a stdio server: everything after -- is its command line
  add <id> [flags] <url>            an http server (-t sse for legacy SSE)
  add <id> --from-registry NAME[@VERSION] [--var K=V] [--use TYPE] [--yes]
                                    install from an MCP registry; shows what will run first
        flags: -e/--env K=V, -H/--header "Name: value", -s/--scope project|global,
               -t/--transport http|sse|stdio, --replace, --disabled, --cwd DIR,
               --sandbox default|strict|false|JSON, --sandbox-read/--sandbox-write PATH, ...
  list [--scope effective|project|global] [--status] [--json]
                                    --status connects them all at once and shows their states
  get <id> [--json]                 live status and detail
  remove|enable|disable <id> [--scope project|global]
  test [<id>...] [--probe TOOL [--args JSON] | --no-probe]
                                    connect, handshake, list tools (no id: every enabled server,
                                    all at once), then probe one server with a real call; exit code says the result
  tools [<id>] [--json]             adapted tools: public name, origin, description
  call <id> <tool> [--args JSON] [--yes]
  import [--from claude-desktop|claude-code|codex|cursor|gemini|vscode|FILE] [--scope project|global] [--replace] [--dry-run]
  login <id> [--no-browser]         OAuth login: asks first, then the browser (or paste the redirect back)
  logout <id> [--forget-client]     forget the server's tokens (and its client registration)
  approve|deny <id>                 let a server a project file defines (or the policy forces) start, or keep it off
  search [<words>] [--refresh] [--json]
                                    active servers of the registry ($MCP_HOST_REGISTRY, else the
                                    official one), with the age of the cached answer
  update <id> [--yes] [--var K=V]   offer the latest registry version of a server added from one
  permissions [list] [<id>] [--json] | permissions revoke <id> [<tool>] | --all
                                    the remembered "always allow" answers, and taking them back

Configuration: global $MCP_HOST_CONFIG (default <user config dir>/mcp-host/config.json),
project ./.mcp-host/config.json, and MCP_HOST_SERVERS (JSON servers object).

Tokens: the OS keyring (service mcp-host), else mcp-auth.json next to the global config
($MCP_HOST_TOKEN_STORE=auto|keyring|file).

Examples:
  host mcp add memory -- npx -y @modelcontextprotocol/server-memory
  host mcp add github https://api.githubcopilot.com/mcp/ -H 'Authorization: Bearer ${GITHUB_TOKEN}'
  host mcp import --from claude-desktop --dry-run
  host mcp search weather

Exit codes: 0 ok, 1 failed, 2 usage or config error, 3 login required, 4 denied.
`

func main() {
	os.Exit(traced(os.Stderr, func() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }))
}

// shortUsage is printed when host runs without a command.
const shortUsage = `Usage: host <command> [arguments]

Commands: demo, chat, web, serve, mcp, protocol, completion, help, version. Run "host --help" for the
whole usage, "host help <command>" or "host <command> --help" for one.
`

// topCommands are the commands "host" dispatches, for "did you mean".
var topCommands = []string{"demo", "chat", "web", "serve", "mcp", "protocol", "completion", "help", "version"}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, shortUsage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "help":
		if len(args) == 1 {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		// "host help mcp add" is "host mcp add --help".
		return run(append(append([]string{}, args[1:]...), "--help"), stdin, stdout, stderr)
	case "version", "--version", "-version", "-v":
		fmt.Fprintf(stdout, "host %s\n", versionString())
		return exitOK
	case "mcp":
		return runMCP(args[1:], stdin, stdout, stderr)
	case "completion":
		return runCompletion(args[1:], stdout, stderr)
	case "serve":
		return runServe(args[1:], stdin, stdout, stderr)
	case "demo":
		return runDemo(args[1:], stdin, stdout, stderr)
	case "chat":
		return runChat(args[1:], stdin, stdout, stderr)
	case "web":
		return runWeb(args[1:], stdout, stderr)
	case "protocol":
		return runProtocol(args[1:], stdout, stderr)
	case "__complete": // hidden: the completion scripts' candidates (completion_complete.go)
		return runComplete(args[1:], stdout, stderr)
	case "demo-stdio-server": // hidden: the demo's local server
		return runDemoStdio(stderr)
	default:
		return unknownCommand(stderr, "host", args[0], topCommands)
	}
}
