package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/serve"
	"github.com/mcp-host/mcp-host/termsafe"
)

// permissions lists and takes back the user's remembered "always allow"
// answers: `host mcp permissions [list] [<id>]` and `host mcp permissions
// revoke <id> [<tool>] | --all`. A revoke reaches a running host serve at
// its next call of the tool, which asks again.
func (c *cli) permissions(args []string) int {
	sub, name := "list", "permissions"
	if len(args) > 0 && (args[0] == "list" || args[0] == "revoke") {
		sub, name, args = args[0], "permissions "+args[0], args[1:]
	} else if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		return unknownCommand(c.stderr, "host mcp permissions", args[0], []string{"list", "revoke"})
	}
	fs := newFlagSet(name, c.stderr)
	file := fs.String("permissions", "", "file keeping \"always allow\" answers (default: permissions.json next to the global config)")
	asJSON := fs.Bool("json", false, "JSON output")
	all := new(bool)
	if sub == "revoke" {
		all = fs.Bool("all", false, "every remembered answer of every server")
	}
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if *file == "" {
		*file = defaultPermissions(c.global)
	}
	store, err := permission.OpenStore(*file)
	if err != nil {
		return c.failf(exitFailure, "permissions: %v", err)
	}
	if sub == "list" {
		return c.listPermissions(store, pos, *asJSON)
	}
	return c.revokePermissions(store, pos, *all, *asJSON)
}

func (c *cli) listPermissions(store *permission.Store, pos []string, asJSON bool) int {
	if len(pos) > 1 {
		return c.failf(exitUsage, "permissions list: want at most one server id")
	}
	server := ""
	if len(pos) == 1 {
		server = pos[0]
	}
	list, err := store.List(server)
	if err != nil {
		return c.failf(exitFailure, "permissions: %v", err)
	}
	answers := serve.Answers(list, c.identities())
	if asJSON {
		return c.writeJSON(protocol.PermissionsListResult{Answers: answers, File: store.Path()})
	}
	if len(answers) == 0 {
		if server != "" {
			fmt.Fprintf(c.stdout, "%s\n", message("No remembered answers for server %q in %s.", server, store.Path()))
		} else {
			fmt.Fprintf(c.stdout, "%s\n", message("No remembered answers in %s.", store.Path()))
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTOOL\tSCOPE\tSINCE\tNOTE")
	for _, a := range answers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termsafe.LineMax(a.Server, 64), answerTool(a), answerScope(a), answerSince(a), answerNote(a))
	}
	tw.Flush()
	fmt.Fprintf(c.stdout, "%s\n", message("Kept in %s. Take one back: host mcp permissions revoke <id> [<tool>]", store.Path()))
	return exitOK
}

func (c *cli) revokePermissions(store *permission.Store, pos []string, all, asJSON bool) int {
	var server, tool string
	switch {
	case all && len(pos) > 0:
		return c.failf(exitUsage, "permissions revoke: --all takes no server or tool")
	case all:
	case len(pos) == 1 || len(pos) == 2:
		server = pos[0]
		if len(pos) == 2 {
			tool = pos[1]
		}
	default:
		return c.failf(exitUsage, "permissions revoke: want <id> [<tool>], or --all")
	}
	gone, err := store.Revoke(server, tool)
	if errors.Is(err, permission.ErrNoAnswer) {
		return c.failf(exitUsage, "permissions revoke: %v (see: host mcp permissions list)", err)
	}
	if err != nil {
		return c.failf(exitFailure, "permissions revoke: %v", err)
	}
	answers := serve.Answers(gone, c.identities())
	if asJSON {
		return c.writeJSON(protocol.PermissionsRevokeResult{Revoked: answers})
	}
	for _, a := range answers {
		what := message("every tool of server %q", a.Server)
		if a.Scope == protocol.ScopeTool {
			what = message("tool %q of server %q", a.Tool, a.Server)
		}
		fmt.Fprintf(c.stdout, "revoked: always allow %s (%s)\n", what, answerSince(a))
	}
	fmt.Fprintln(c.stdout, "The next call asks again, also in a host serve that is running.")
	return exitOK
}

// identities says who each configured server id stands for, so that a
// listed answer says whether it applies to the server as configured. A
// configuration that does not load leaves every answer not current.
func (c *cli) identities() func(string) (permission.Identity, bool) {
	ids := map[string]permission.Identity{}
	if eff, err := c.load(); err == nil {
		for _, e := range eff.Servers {
			ids[e.ID] = runtime.IdentityOf(e)
		}
	} else {
		c.warnf("%v", err)
	}
	return func(id string) (permission.Identity, bool) {
		ident, ok := ids[id]
		return ident, ok
	}
}

func answerTool(a protocol.RememberedAnswer) string {
	if a.Scope == protocol.ScopeServer {
		return "*"
	}
	return termsafe.LineMax(a.Tool, 64)
}

func answerScope(a protocol.RememberedAnswer) string {
	if a.Scope == protocol.ScopeServer {
		return "server (every tool)"
	}
	return "tool (this definition)"
}

func answerSince(a protocol.RememberedAnswer) string {
	if a.AllowedAt.IsZero() {
		return "before times were kept"
	}
	return a.AllowedAt.Local().Format("2006-01-02 15:04")
}

func answerNote(a protocol.RememberedAnswer) string {
	if a.Current {
		return ""
	}
	return "not the configured server (its URL or command changed, or it is gone): applies to nothing now"
}
