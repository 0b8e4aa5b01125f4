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

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/tokenstore"
)

// cli carries what every mcp subcommand needs.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	global         string // global config path
	project        string // project config path

	in       *bufio.Reader // stdin, once something reads it
	store    *tokenstore.Store
	storeErr error

	approvalStore *approval.Store
}

func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "host: %v\n", err)
		return exitFailure
	}
	global, project := config.DefaultPaths(cwd)
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, global: global, project: project}
	cmds := map[string]func([]string) int{
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
		"login":   c.login,
		"logout":  c.logout,
		"approve": func(a []string) int { return c.approve(a, true) },
		"deny":    func(a []string) int { return c.approve(a, false) },
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "host mcp: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
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

func (c *cli) failf(code int, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "host mcp: "+format+"\n", args...)
	return code
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

// load reads the effective configuration and reports file-level problems on
// stderr (they never stop the other servers).
func (c *cli) load() (*config.Effective, error) {
	eff, err := config.Load(config.LoadOptions{GlobalPath: c.global, ProjectPath: c.project, EnvServers: os.Getenv("MCP_HOST_SERVERS")})
	if err != nil {
		return nil, err
	}
	for _, ferr := range eff.Errors {
		fmt.Fprintf(c.stderr, "warning: %v\n", ferr)
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
	return config.ServerEntry{}, eff, fmt.Errorf("no server %q in %s or %s", id, c.global, c.project)
}

// describeTarget says where a server is, without header or env values.
func describeTarget(cfg config.ServerConfig) string {
	if cfg.Command != "" {
		return strings.TrimSpace(cfg.Command + " " + strings.Join(cfg.Args, " "))
	}
	return cfg.URL
}

func (c *cli) writeJSON(v any) int {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return c.failf(exitFailure, "%v", err)
	}
	return exitOK
}

// connectOne runs a manager with just this server, waits for it to settle
// and returns it with the server's status. Callers close the manager.
func (c *cli) connectOne(e config.ServerEntry, force bool) (*runtime.Manager, runtime.Status) {
	if force && !e.Config.IsEnabled() {
		t := true
		e.Config.Enabled = &t
	}
	m := runtime.NewManager(c.managerOptions())
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
	case runtime.StateApprovalRequired:
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

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
