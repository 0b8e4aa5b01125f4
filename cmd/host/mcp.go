package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/tokenstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"
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
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "host mcp: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	return cmd(args[1:])
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

func (c *cli) add(args []string) int {
	fs := newFlagSet("add", c.stderr)
	var (
		headers, cmdArgs, env, include, exclude multiFlag
		cfg                                     config.ServerConfig
		scope                                   = fs.String("scope", "global", "where to write: project or global")
		replace                                 = fs.Bool("replace", false, "replace an existing server of the same id")
		disabled                                = fs.Bool("disabled", false, "add the server turned off")
		oauth                                   config.OAuthConfig
	)
	fs.StringVar(&cfg.Transport, "transport", "", "http, sse or stdio")
	fs.StringVar(&cfg.URL, "url", "", "MCP endpoint URL (http, sse)")
	fs.Var(&headers, "header", "static HTTP header K=V (repeatable; ${VAR} expands at connect time)")
	fs.StringVar(&cfg.Command, "command", "", "command to run (stdio)")
	fs.Var(&cmdArgs, "arg", "argument for the command (repeatable)")
	fs.Var(&env, "env", "environment variable K=V for the command (repeatable)")
	fs.StringVar(&cfg.Cwd, "cwd", "", "working directory for the command")
	fs.IntVar(&cfg.RequestTimeoutMS, "request-timeout-ms", 0, "per-request timeout (default 30000)")
	fs.IntVar(&cfg.StartupTimeoutMS, "startup-timeout-ms", 0, "connect timeout")
	fs.StringVar(&cfg.ProtocolVersion, "protocol-version", "", "pin the MCP protocol version")
	fs.Var(&include, "include-tool", "only expose tools matching this glob (repeatable)")
	fs.Var(&exclude, "exclude-tool", "hide tools matching this glob (repeatable; wins over include)")
	fs.BoolVar(&cfg.Trust, "trust", false, "skip the confirm prompt for this server's tools")
	fs.StringVar(&oauth.ClientID, "oauth-client-id", "", "pre-registered OAuth client id")
	fs.StringVar(&oauth.Scope, "oauth-scope", "", "OAuth scopes to request")
	fs.IntVar(&oauth.CallbackPort, "oauth-callback-port", 0, "fixed loopback port for the OAuth callback")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "add: want exactly one server id, got %d arguments", len(pos))
	}
	id := pos[0]
	if err := config.ValidateServerID(id); err != nil {
		return c.failf(exitUsage, "add: %v", err)
	}
	if cfg.Headers, err = keyValues("header", headers); err != nil {
		return c.failf(exitUsage, "add: %v", err)
	}
	if cfg.Env, err = keyValues("env", env); err != nil {
		return c.failf(exitUsage, "add: %v", err)
	}
	cfg.Args, cfg.IncludeTools, cfg.ExcludeTools = cmdArgs, include, exclude
	if *disabled {
		f := false
		cfg.Enabled = &f
	}
	if oauth != (config.OAuthConfig{}) {
		cfg.OAuth = &oauth
	}
	if err := cfg.Validate(); err != nil {
		return c.failf(exitUsage, "add %s: %v", id, err)
	}
	path, err := c.scopePath(*scope)
	if err != nil {
		return c.failf(exitUsage, "add: %v", err)
	}
	err = config.EditFile(path, func(f *config.File) error {
		if _, exists := f.MCP.Servers[id]; exists && !*replace {
			return fmt.Errorf("server %q already exists in %s (use --replace)", id, path)
		}
		if f.MCP.Servers == nil {
			f.MCP.Servers = map[string]*config.ServerConfig{}
		}
		f.MCP.Servers[id] = &cfg
		return nil
	})
	if err != nil {
		return c.failf(exitUsage, "add: %v", err)
	}
	fmt.Fprintf(c.stdout, "added %s (%s) to %s\n", id, describeTarget(cfg), path)
	return exitOK
}

// describeTarget says where a server is, without header or env values.
func describeTarget(cfg config.ServerConfig) string {
	if cfg.Command != "" {
		return strings.TrimSpace(cfg.Command + " " + strings.Join(cfg.Args, " "))
	}
	return cfg.URL
}

func (c *cli) list(args []string) int {
	fs := newFlagSet("list", c.stderr)
	scope := fs.String("scope", "effective", "effective, project or global")
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := parse(fs, args); err != nil {
		return exitUsage
	}
	eff, err := c.load()
	if err != nil {
		return c.failf(exitUsage, "list: %v", err)
	}
	type row struct {
		ID        string   `json:"id"`
		Transport string   `json:"transport"`
		Source    string   `json:"source"`
		Enabled   bool     `json:"enabled"`
		Target    string   `json:"target"`
		Headers   []string `json:"header_names,omitempty"`
		Error     string   `json:"error,omitempty"`
	}
	rows := []row{}
	for _, e := range eff.Servers {
		if *scope != "effective" && e.Source != *scope {
			continue
		}
		r := row{ID: e.ID, Transport: e.Config.Transport, Source: e.Source, Enabled: e.Config.IsEnabled(), Target: describeTarget(e.Config)}
		for k := range e.Config.Headers {
			r.Headers = append(r.Headers, k)
		}
		sort.Strings(r.Headers)
		if e.Err != nil {
			r.Error = e.Err.Error()
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
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTRANSPORT\tSOURCE\tENABLED\tTARGET")
	for _, r := range rows {
		target := r.Target
		if r.Error != "" {
			target = "INVALID: " + r.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", r.ID, r.Transport, r.Source, r.Enabled, target)
	}
	tw.Flush()
	return exitOK
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
	}
	return exitFailure
}

func (c *cli) get(args []string) int {
	fs := newFlagSet("get", c.stderr)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "get: want one server id")
	}
	e, _, err := c.entry(pos[0])
	if err != nil {
		return c.failf(exitUsage, "get: %v", err)
	}
	m, st := c.connectOne(e, false)
	defer m.Close()
	if *asJSON {
		out := struct {
			runtime.Status
			Target  string   `json:"target"`
			Path    string   `json:"config_path"`
			Headers []string `json:"header_names,omitempty"`
			Env     []string `json:"env_names,omitempty"`
		}{Status: st, Target: describeTarget(e.Config), Path: e.Path, Headers: keys(e.Config.Headers), Env: keys(e.Config.Env)}
		c.writeJSON(out)
		return exitFor(st)
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, v)
		}
	}
	line("id", st.ID)
	line("state", string(st.State))
	line("transport", st.Transport+map[bool]string{true: " (fell back from http)"}[st.FellBackToSSE])
	line("source", fmt.Sprintf("%s (%s)", st.Source, e.Path))
	line("enabled", fmt.Sprint(st.Enabled))
	line("target", describeTarget(e.Config))
	line("headers", strings.Join(keys(e.Config.Headers), ", "))
	line("env", strings.Join(keys(e.Config.Env), ", "))
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
	line("tokens kept in", st.AuthStorage)
	line("last error", st.LastError)
	tw.Flush()
	if st.Stderr != "" {
		fmt.Fprintf(c.stdout, "stderr (tail):\n%s\n", indent(strings.TrimRight(st.Stderr, "\n")))
	}
	return exitFor(st)
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

func (c *cli) remove(args []string) int {
	fs := newFlagSet("remove", c.stderr)
	scope := fs.String("scope", "", "project or global (default: where the server is defined)")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "remove: want one server id")
	}
	id := pos[0]
	path, err := c.definingPath(id, *scope)
	if err != nil {
		return c.failf(exitUsage, "remove: %v", err)
	}
	err = config.EditFile(path, func(f *config.File) error {
		if _, ok := f.MCP.Servers[id]; !ok {
			return fmt.Errorf("no server %q in %s", id, path)
		}
		delete(f.MCP.Servers, id)
		return nil
	})
	if err != nil {
		return c.failf(exitUsage, "remove: %v", err)
	}
	fmt.Fprintf(c.stdout, "removed %s from %s\n", id, path)
	return exitOK
}

// definingPath is the file of --scope, or else the file that defines id.
func (c *cli) definingPath(id, scope string) (string, error) {
	if scope != "" {
		return c.scopePath(scope)
	}
	e, _, err := c.entry(id)
	if err != nil {
		return "", err
	}
	if e.Path == "" {
		return "", fmt.Errorf("server %q comes from MCP_HOST_SERVERS, not a file; change the variable", id)
	}
	return e.Path, nil
}

func (c *cli) setEnabled(args []string, enabled bool) int {
	verb := map[bool]string{true: "enable", false: "disable"}[enabled]
	fs := newFlagSet(verb, c.stderr)
	scope := fs.String("scope", "", "project or global (default: where the server is defined); project may override a global server")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "%s: want one server id", verb)
	}
	id := pos[0]
	path, err := c.definingPath(id, *scope)
	if err != nil {
		return c.failf(exitUsage, "%s: %v", verb, err)
	}
	err = config.EditFile(path, func(f *config.File) error {
		if f.MCP.Servers == nil {
			f.MCP.Servers = map[string]*config.ServerConfig{}
		}
		sc, ok := f.MCP.Servers[id]
		if !ok {
			// An override in this file of a server defined in another layer.
			if _, _, err := c.entry(id); err != nil {
				return err
			}
			sc = &config.ServerConfig{}
			f.MCP.Servers[id] = sc
		}
		sc.Enabled = &enabled
		return nil
	})
	if err != nil {
		return c.failf(exitUsage, "%s: %v", verb, err)
	}
	fmt.Fprintf(c.stdout, "%sd %s in %s\n", verb, id, path)
	return exitOK
}

func (c *cli) test(args []string) int {
	fs := newFlagSet("test", c.stderr)
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "test: want one server id")
	}
	e, _, err := c.entry(pos[0])
	if err != nil {
		return c.failf(exitUsage, "test: %v", err)
	}
	if e.Err != nil {
		return c.failf(exitUsage, "test: %v", e.Err)
	}
	fmt.Fprintf(c.stderr, "connecting to %s (%s)…\n", e.ID, describeTarget(e.Config))
	start := time.Now()
	m, st := c.connectOne(e, true)
	defer m.Close()
	elapsed := time.Since(start).Round(time.Millisecond)
	switch st.State {
	case runtime.StateReady:
		fmt.Fprintf(c.stdout, "ok: %s is ready in %s: %s %s, protocol %s, transport %s, %d tools\n",
			e.ID, elapsed, st.ServerName, st.ServerVersion, st.ProtocolVersion, st.Transport, st.Tools)
	case runtime.StateAuthRequired:
		fmt.Fprintf(c.stdout, "login required: %s: %s (run: host mcp login %s)\n", e.ID, st.LastError, e.ID)
	default:
		fmt.Fprintf(c.stdout, "failed: %s after %s: %s\n", e.ID, elapsed, st.LastError)
		if st.Stderr != "" {
			fmt.Fprintf(c.stdout, "stderr (tail):\n%s\n", indent(strings.TrimRight(st.Stderr, "\n")))
		}
	}
	return exitFor(st)
}

func (c *cli) tools(args []string) int {
	fs := newFlagSet("tools", c.stderr)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
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
	type row struct {
		Name        string `json:"name"`
		Server      string `json:"server"`
		Tool        string `json:"tool"`
		Description string `json:"description"`
	}
	rows := []row{}
	code := exitOK
	for _, st := range sts {
		if st.State != runtime.StateReady {
			if st.State != runtime.StateDisabled {
				fmt.Fprintf(c.stderr, "%s: %s: %s\n", st.ID, st.State, st.LastError)
				code = exitFailure
			}
			continue
		}
		tools, err := m.Tools(st.ID)
		if err != nil {
			fmt.Fprintf(c.stderr, "%s: %v\n", st.ID, err)
			code = exitFailure
			continue
		}
		for _, t := range tools {
			rows = append(rows, row{Name: adapter.PublicName(st.ID, t.Name), Server: st.ID, Tool: t.Name, Description: firstLine(t.Description)})
		}
	}
	if *asJSON {
		c.writeJSON(rows)
		return code
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tORIGIN\tDESCRIPTION")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s/%s\t%s\n", r.Name, r.Server, r.Tool, truncate(r.Description, 80))
	}
	tw.Flush()
	return code
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

func (c *cli) call(args []string) int {
	fs := newFlagSet("call", c.stderr)
	argsJSON := fs.String("args", "{}", "tool arguments as a JSON object")
	yes := fs.Bool("yes", false, "allow the call without asking")
	asJSON := fs.Bool("json", false, "print the raw result as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 2 {
		return c.failf(exitUsage, "call: want <server-id> <tool>")
	}
	id, tool := pos[0], pos[1]
	var obj map[string]any
	if err := json.Unmarshal([]byte(*argsJSON), &obj); err != nil {
		return c.failf(exitUsage, "call: --args must be a JSON object: %v", err)
	}
	e, _, err := c.entry(id)
	if err != nil {
		return c.failf(exitUsage, "call: %v", err)
	}
	m, st := c.connectOne(e, false)
	defer m.Close()
	if st.State != runtime.StateReady {
		return c.failf(exitFor(st), "call: server %q is %s: %s", id, st.State, st.LastError)
	}
	tools, err := m.Tools(id)
	if err != nil {
		return c.failf(exitFailure, "call: %v", err)
	}
	var def *mcp.Tool
	for _, t := range tools {
		if t.Name == tool {
			def = t
		}
	}
	if def == nil {
		return c.failf(exitUsage, "call: server %q has no tool %q (see: host mcp tools %s)", id, tool, id)
	}
	if !*yes && !e.Config.Trust {
		ok, err := c.confirm(id, def, obj)
		if err != nil {
			return c.failf(exitDenied, "call: %v", err)
		}
		if !ok {
			return c.failf(exitDenied, "call: denied")
		}
	}
	res, err := m.CallTool(context.Background(), id, tool, json.RawMessage(*argsJSON))
	if err != nil {
		return c.failf(exitFailure, "call: %v", err)
	}
	if *asJSON {
		c.writeJSON(res)
	} else {
		printResult(c.stdout, res)
	}
	if res.IsError {
		return exitFailure
	}
	return exitOK
}

// confirm asks on the terminal; without one it refuses.
func (c *cli) confirm(id string, def *mcp.Tool, args map[string]any) (bool, error) {
	f, ok := c.stdin.(*os.File)
	if !ok || !isTerminal(f) {
		return false, errors.New("refusing to call without confirmation: no terminal to ask on (pass --yes to allow)")
	}
	pretty, _ := json.MarshalIndent(args, "  ", "  ")
	fmt.Fprintf(c.stderr, "Allow MCP tool call?\n  server: %s\n  tool:   %s\n", id, def.Name)
	if def.Title != "" {
		fmt.Fprintf(c.stderr, "  title:  %s (from the server, untrusted)\n", def.Title)
	}
	fmt.Fprintf(c.stderr, "  args:   %s\nAllow? [y/N] ", pretty)
	line, _ := bufio.NewReader(c.stdin).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes", nil
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func printResult(w io.Writer, res *mcp.CallToolResult) {
	if res.IsError {
		fmt.Fprintln(w, "tool error:")
	}
	for _, ct := range res.Content {
		switch v := ct.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, v.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", v.MIMEType, len(v.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", v.MIMEType, len(v.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s]\n", v.URI)
		case *mcp.EmbeddedResource:
			if v.Resource != nil {
				if v.Resource.Text != "" {
					fmt.Fprintf(w, "[resource %s]\n%s\n", v.Resource.URI, v.Resource.Text)
				} else {
					fmt.Fprintf(w, "[resource %s, %d bytes]\n", v.Resource.URI, len(v.Resource.Blob))
				}
			}
		default:
			b, _ := json.Marshal(ct)
			fmt.Fprintln(w, string(b))
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintf(w, "structured content:\n%s\n", b)
	}
}

func (c *cli) importServers(args []string) int {
	fs := newFlagSet("import", c.stderr)
	from := fs.String("from", ".mcp.json", "claude-desktop, cursor, vscode, or a file path")
	scope := fs.String("scope", "global", "where to write: project or global")
	replace := fs.Bool("replace", false, "replace servers that already exist")
	dryRun := fs.Bool("dry-run", false, "show what would be imported without writing")
	if _, err := parse(fs, args); err != nil {
		return exitUsage
	}
	path, format := *from, "file"
	if p, ok := config.ImportSources()[*from]; ok {
		path, format = p, *from
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c.failf(exitUsage, "import: %v", err)
	}
	imported, err := config.ParseImport(data, format)
	if err != nil {
		return c.failf(exitUsage, "import %s: %v", path, err)
	}
	dest, err := c.scopePath(*scope)
	if err != nil {
		return c.failf(exitUsage, "import: %v", err)
	}
	code := exitOK
	var added []string
	write := func(f *config.File) error {
		if f.MCP.Servers == nil {
			f.MCP.Servers = map[string]*config.ServerConfig{}
		}
		for _, s := range imported {
			if s.Err != nil {
				fmt.Fprintf(c.stderr, "skipped %q: %v\n", s.Name, s.Err)
				code = exitFailure
				continue
			}
			if _, exists := f.MCP.Servers[s.ID]; exists && !*replace {
				fmt.Fprintf(c.stderr, "skipped %q: server %q already exists in %s (use --replace)\n", s.Name, s.ID, dest)
				continue
			}
			cfg := s.Config
			f.MCP.Servers[s.ID] = &cfg
			added = append(added, s.ID)
		}
		return nil
	}
	if *dryRun {
		var f config.File
		_ = write(&f)
		for _, id := range added {
			fmt.Fprintf(c.stdout, "would import %s (%s)\n", id, describeTarget(*f.MCP.Servers[id]))
		}
		return code
	}
	if err := config.EditFile(dest, write); err != nil {
		return c.failf(exitUsage, "import: %v", err)
	}
	fmt.Fprintf(c.stdout, "imported %d servers from %s into %s: %s\n", len(added), path, dest, strings.Join(added, ", "))
	return code
}
