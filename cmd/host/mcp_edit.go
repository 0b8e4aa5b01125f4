package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/config"
)

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
	before, _, _ := c.entry(id)
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
	c.forgetCredentials(before)
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
				fmt.Fprintf(c.stderr, "%s\n", message("skipped %q: %v", s.Name, s.Err))
				code = exitFailure
				continue
			}
			if _, exists := f.MCP.Servers[s.ID]; exists && !*replace {
				fmt.Fprintf(c.stderr, "%s\n", message("skipped %q: server %q already exists in %s (use --replace)", s.Name, s.ID, dest))
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
