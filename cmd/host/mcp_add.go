package main

import (
	"fmt"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/termsafe"
)

// add writes a server entry. Besides the long flags it takes the forms
// other MCP CLIs use: "add <id> [flags] -- <command> [args...]" (all after
// "--" is the command line, so its own flags reach it untouched) and
// "add <id> <url>" (transport http unless -t says sse).
func (c *cli) add(args []string) int {
	flagArgs, command := splitCommand(args)
	fs := newFlagSet("add", c.stderr)
	var (
		headers, cmdArgs, env, envVars, include, exclude multiFlag
		sandboxRead, sandboxWrite                        multiFlag
		sandboxPolicy                                    string
		cfg                                              config.ServerConfig
		scope                                            string
		replace                                          = fs.Bool("replace", false, "replace an existing server of the same id")
		disabled                                         = fs.Bool("disabled", false, "add the server turned off")
		oauth                                            config.OAuthConfig
	)
	for _, n := range []string{"scope", "s"} {
		fs.StringVar(&scope, n, "global", "where to write: project or global")
	}
	for _, n := range []string{"transport", "t"} {
		fs.StringVar(&cfg.Transport, n, "", "http, sse or stdio (default: stdio with a command, else http)")
	}
	for _, n := range []string{"header", "H"} {
		fs.Var(&headers, n, `static HTTP header "Name: value" or Name=value (repeatable; ${VAR} in single quotes expands at connect time: -H 'Authorization: Bearer ${TOKEN}')`)
	}
	for _, n := range []string{"env", "e"} {
		fs.Var(&env, n, "environment variable K=V for the command (repeatable; a secret as -e 'K=${VAR}', expanded at connect time)")
	}
	fs.Var(&envVars, "env-var", "name of a variable of the host's environment the command gets too (repeatable; it gets only a base set otherwise)")
	fs.StringVar(&sandboxPolicy, "sandbox", "", `sandbox policy (stdio): default, strict, false (global only) or a JSON object`)
	fs.Var(&sandboxRead, "sandbox-read", "path the sandboxed command may read (repeatable)")
	fs.Var(&sandboxWrite, "sandbox-write", "path the sandboxed command may read and write (repeatable)")
	fs.StringVar(&cfg.URL, "url", "", "MCP endpoint URL (http, sse)")
	fs.StringVar(&cfg.Command, "command", "", "command to run (stdio); or give it after --")
	fs.Var(&cmdArgs, "arg", "argument for the command (repeatable)")
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
	var reg registryAdd
	fs.StringVar(&reg.spec, "from-registry", "", "install NAME[@VERSION] from the registry (shows what will run first)")
	fs.Var((*multiFlag)(&reg.vars), "var", "with --from-registry: a value NAME=value the entry asks for (repeatable)")
	fs.StringVar(&reg.use, "use", "", "with --from-registry: npm, pypi, oci, nuget, mcpb or remote (default: the first this machine can run)")
	fs.StringVar(&reg.registries, "registry", "", "with --from-registry: registry URL(s), comma-separated")
	fs.BoolVar(&reg.yes, "yes", false, "with --from-registry: write without asking")
	pos, code := c.parseFlags(fs, flagArgs)
	if code >= 0 {
		return code
	}
	if len(pos) == 0 {
		return c.failf(exitUsage, "add: want a server id (host mcp add --help)")
	}
	id := pos[0]
	if err := config.ValidateServerID(id); err != nil {
		return c.failf(exitUsage, "add: %v", err)
	}
	if reg.spec != "" {
		if len(pos) > 1 || command != nil || cfg.Command != "" || cfg.URL != "" {
			return c.failf(exitUsage, "add %s: --from-registry takes no command or URL: the registry entry says what runs", id)
		}
		reg.id, reg.scope, reg.replace = id, scope, *replace
		return c.addFromRegistry(reg)
	}
	switch {
	case len(pos) == 2 && cfg.URL == "" && isURL(pos[1]):
		cfg.URL = pos[1]
	case len(pos) > 1:
		return c.failf(exitUsage, "add %s: unexpected %q: give a URL, or the command after -- (host mcp add id -- npx -y pkg)", id, pos[1])
	}
	if command != nil {
		if len(command) == 0 {
			return c.failf(exitUsage, "add %s: no command after --", id)
		}
		if cfg.Command != "" || cfg.URL != "" {
			return c.failf(exitUsage, "add %s: give either a command after -- or --command/a URL, not both", id)
		}
		cfg.Command = command[0]
		cmdArgs = append(cmdArgs, command[1:]...)
	}
	if cfg.Command == "" && cfg.URL == "" {
		return c.failf(exitUsage, "add %s: give a URL or a command: host mcp add %s https://host/mcp, or host mcp add %s -- npx -y pkg", id, id, id)
	}
	var err error
	if cfg.Headers, err = headerValues(headers); err != nil {
		return c.failf(exitUsage, "add %s: %v", id, err)
	}
	if cfg.Env, err = keyValues("env", env); err != nil {
		return c.failf(exitUsage, "add %s: %v", id, err)
	}
	cfg.Args, cfg.IncludeTools, cfg.ExcludeTools, cfg.EnvVars = cmdArgs, include, exclude, envVars
	if *disabled {
		f := false
		cfg.Enabled = &f
	}
	if oauth != (config.OAuthConfig{}) {
		cfg.OAuth = &oauth
	}
	if cfg.Sandbox, err = sandboxFlags(sandboxPolicy, sandboxRead, sandboxWrite); err != nil {
		return c.failf(exitUsage, "add %s: %v", id, err)
	}
	if err := cfg.Validate(); err != nil {
		return c.failf(exitUsage, "add %s: %v", id, err)
	}
	// A secret typed in clear (or expanded by the shell) would be written
	// into the file; one the shell expanded to nothing is refused.
	warns, err := cfg.CheckSecrets(id)
	if err != nil {
		return c.failf(exitUsage, "add %s: %v", id, err)
	}
	for _, w := range warns {
		c.warnf("add %s: %s", id, w.Message)
	}
	path, err := c.scopePath(scope)
	if err != nil {
		return c.failf(exitUsage, "add: %v", err)
	}
	// The policy judges the server as it would run: refused here, it is
	// never written.
	if err := c.policy().ForbidsRemoval(id); err != nil {
		return c.failf(exitDenied, "add %s: %v", id, err)
	}
	judged := c.policy().Judge(config.ServerEntry{ID: id, Config: cfg, Source: scope, Path: path, DefinedIn: scope, DefinedPath: path}, nil)
	if b := judged.Blocked; b != nil {
		return c.failf(exitDenied, "add %s: refused: %v", id, b)
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
		return c.editFailed("add", id, "added", err)
	}
	fmt.Fprintf(c.stdout, "added %s (%s) to %s\n", id, describeTarget(cfg), path)
	for _, l := range sandboxNotice(id, cfg, sandboxOptions(c.global, c.project)) {
		fmt.Fprintln(c.stdout, termsafe.Line(l))
	}
	return exitOK
}

// splitCommand splits args at the first "--": the flags and positional
// arguments before it, and the command line after it (nil without "--").
func splitCommand(args []string) (before, command []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], append([]string{}, args[i+1:]...)
		}
	}
	return args, nil
}

// isURL reports whether s is what "add <id> <url>" takes as the URL.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "${")
}

// headerValues parses -H values: "Name: value" as curl and claude mcp
// take them, or Name=value as host mcp always did. Whichever separator
// comes first wins, so "X=a:b" and "Authorization: Bearer a=b" both work.
func headerValues(hs []string) (map[string]string, error) {
	if len(hs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		colon, eq := strings.Index(h, ":"), strings.Index(h, "=")
		var k, v string
		switch {
		case colon > 0 && (eq < 0 || colon < eq):
			k, v = strings.TrimSpace(h[:colon]), strings.TrimSpace(h[colon+1:])
		case eq > 0:
			k, v = strings.TrimSpace(h[:eq]), h[eq+1:]
		default:
			// The value may be a secret: name only its length.
			return nil, fmt.Errorf(`--header: want "Name: value" or Name=value (got %d characters without ':' or '=')`, len(h))
		}
		if k == "" || strings.ContainsAny(k, " \t\r\n") {
			return nil, fmt.Errorf("--header: invalid header name %q", k)
		}
		out[k] = v
	}
	return out, nil
}
