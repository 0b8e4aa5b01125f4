package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/displayurl"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/mcp-host/mcp-host/runtime/policy"
	"github.com/mcp-host/mcp-host/termsafe"
)

// cli carries what every mcp subcommand needs.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	global         string // global config path
	project        string // project config path

	in       *bufio.Reader // stdin, once something reads it
	store    *noticeStore
	storeErr error

	approvalStore *approval.Store
	pol           *policy.Policy // the managed policy, read once (see policy)
}

// policy reads the organization's managed policy once.
func (c *cli) policy() *policy.Policy {
	if c.pol == nil {
		c.pol = policy.DefaultSource().Load()
	}
	return c.pol
}

func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		printCommandHelp(stderr, "host mcp")
		return exitUsage
	case args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && len(args) == 1):
		printCommandHelp(stdout, "host mcp")
		return exitOK
	case args[0] == "help":
		// "host mcp help call" is "host mcp call --help".
		return runMCP(append(append([]string{}, args[1:]...), "--help"), stdin, stdout, stderr)
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "host: %v\n", err)
		return exitFailure
	}
	global, project := config.DefaultPaths(cwd)
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, global: global, project: project}
	cmds := c.commands()
	cmd, ok := cmds[args[0]]
	if !ok {
		return unknownCommand(stderr, "host mcp", args[0], keys(cmds))
	}
	return cmd(args[1:])
}

// readLine reads one line from stdin, trimmed.
func (c *cli) readLine() (string, error) {
	if c.in == nil {
		c.in = bufio.NewReader(c.stdin)
	}
	line, err := c.in.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimSpace(line), nil
}

// failf prints an error and returns code. The message may quote a server
// or a config file: it is rendered for the terminal (see message).
func (c *cli) failf(code int, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "host mcp: %s\n", message(format, args...))
	return code
}

// warnf prints a warning, rendered for the terminal like failf's errors.
func (c *cli) warnf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "warning: %s\n", message(format, args...))
}

// scopePath maps --scope to a config file.
func (c *cli) scopePath(scope string) (string, error) {
	switch scope {
	case "global":
		return c.global, nil
	case "project":
		return c.project, nil
	}
	return "", fmt.Errorf("--scope %q: want project or global", scope)
}

// load reads the effective configuration, with the managed policy applied,
// and reports file-level problems on stderr (they never stop the other
// servers).
func (c *cli) load() (*config.Effective, error) {
	eff, err := config.Load(config.LoadOptions{GlobalPath: c.global, ProjectPath: c.project, EnvServers: os.Getenv("MCP_HOST_SERVERS")})
	if err != nil {
		return nil, err
	}
	c.policy().Apply(eff, nil)
	for _, ferr := range eff.Errors {
		c.warnf("%v", ferr)
	}
	return eff, nil
}

func (c *cli) entry(id string) (config.ServerEntry, *config.Effective, error) {
	eff, err := c.load()
	if err != nil {
		return config.ServerEntry{}, nil, err
	}
	for _, e := range eff.Servers {
		if e.ID == id {
			return e, eff, nil
		}
	}
	where := fmt.Sprintf("%s or %s", c.global, c.project)
	if c.policy().Active() {
		where += " or the managed policy " + c.policy().File
	}
	return config.ServerEntry{}, eff, fmt.Errorf("no server %q in %s", id, where)
}

// describeTarget says where a server is, without header or env values, as
// one terminal-safe line: a project file may put anything in a command,
// and a URL is shown in its display form (displayurl: the host in ASCII,
// userinfo and hidden characters flagged).
func describeTarget(cfg config.ServerConfig) string {
	if cfg.Command != "" {
		return termsafe.Line(strings.TrimSpace(cfg.Command + " " + strings.Join(cfg.Args, " ")))
	}
	return displayurl.Text(cfg.URL)
}

// writeJSON prints v as indented JSON, its strings exact but escaped so
// that none drives the terminal (see jsonSafe).
func (c *cli) writeJSON(v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return c.failf(exitFailure, "%v", err)
	}
	if _, err := c.stdout.Write(append(jsonSafe(b), '\n')); err != nil {
		return c.failf(exitFailure, "%v", err)
	}
	return exitOK
}

// connectHow says how connectOne connects.
type connectHow struct {
	// force connects a disabled server (host mcp login).
	force bool
	// listCache takes the catalog from the user's list cache while the
	// server's ttlMs says it is fresh, and keeps what is listed there, as
	// host serve does (host mcp call, which needs only the tool's
	// definition; the commands that show the catalog list it afresh).
	listCache bool
}

// connectOne runs a manager with just this server, waits for it to settle
// and returns it with the server's status. Callers close the manager.
func (c *cli) connectOne(e config.ServerEntry, how connectHow) (*runtime.Manager, runtime.Status) {
	if how.force && !e.Config.IsEnabled() {
		t := true
		e.Config.Enabled = &t
	}
	o := c.managerOptions()
	if how.listCache {
		if dir, err := listcache.DefaultPath(); err == nil {
			o.ToolsCache = &listcache.Dir{Path: dir}
		}
	}
	m := runtime.NewManager(o)
	m.Apply([]config.ServerEntry{e})
	ctx, cancel := context.WithTimeout(context.Background(), e.Config.StartupTimeout()+5*time.Second)
	defer cancel()
	sts, _ := m.WaitSettled(ctx, e.ID)
	if len(sts) == 0 {
		st, _ := m.Get(e.ID)
		return m, st
	}
	return m, sts[0]
}

func exitFor(st runtime.Status) int {
	switch st.State {
	case runtime.StateReady, runtime.StateDisabled:
		return exitOK
	case runtime.StateAuthRequired:
		return exitAuthRequired
	case runtime.StateApprovalRequired, runtime.StateBlockedByPolicy:
		return exitDenied
	}
	return exitFailure
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// indent renders untrusted multi-line text (a stderr tail) for the
// terminal, each line indented.
func indent(s string) string {
	return "  " + strings.ReplaceAll(termsafe.Text(s), "\n", "\n  ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// truncate renders s as one terminal-safe line of at most n runes.
func truncate(s string, n int) string { return termsafe.LineMax(s, n) }

// commands are the subcommands of "host mcp", by name.
func (c *cli) commands() map[string]func([]string) int {
	return map[string]func([]string) int{
		"add":     c.add,
		"list":    c.list,
		"get":     c.get,
		"remove":  c.remove,
		"enable":  func(a []string) int { return c.setEnabled(a, true) },
		"disable": func(a []string) int { return c.setEnabled(a, false) },
		"test":    c.test,
		"tools":   c.tools,
		"call":    c.call,
		"import":  c.importServers,
		"search":  c.search,
		"update":  c.update,
		"login":   c.login,
		"logout":  c.logout,
		"approve": func(a []string) int { return c.approve(a, true) },
		"deny":    func(a []string) int { return c.approve(a, false) },

		"permissions": c.permissions,
	}
}
