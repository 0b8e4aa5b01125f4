package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/policy"
	"github.com/mcp-host/mcp-host/runtime/registry"
	"github.com/mcp-host/mcp-host/termsafe"
)

// policyRegistries returns the registries an organization's managed policy
// names in "registries"; they replace the user's.
var policyRegistries = func(p *policy.Policy) []string {
	if !p.Active() {
		return nil
	}
	return p.Registries
}

// installer returns the registry installer for the registries the flag
// names (comma-separated), else $MCP_HOST_REGISTRY, else the official one,
// judging entries for the file at path (scope global or project).
func (c *cli) installer(flagURLs, scope, path string) *registry.Installer {
	return newInstaller(flagURLs, c.policy, scope, path)
}

// newInstaller is [cli.installer] for host serve too. The managed policy
// (as pol reads it when asked) judges each entry as host mcp add judges a
// typed one: refused, it is never written.
func newInstaller(flagURLs string, pol func() *policy.Policy, scope, path string) *registry.Installer {
	setting := flagURLs
	if setting == "" {
		setting = os.Getenv(registry.EnvURLs)
	}
	in := &registry.Installer{Registries: registry.URLs(setting, policyRegistries(pol()))}
	in.Check = func(id string, cfg config.ServerConfig) error {
		pol := pol()
		if err := pol.ForbidsRemoval(id); err != nil {
			return err
		}
		e := pol.Judge(config.ServerEntry{ID: id, Config: cfg, Source: scope, Path: path, DefinedIn: scope, DefinedPath: path}, nil)
		if e.Blocked != nil {
			return e.Blocked
		}
		return nil
	}
	if dir, err := registry.DefaultCacheDir(); err == nil {
		in.Cache = &registry.Cache{Dir: dir}
	}
	if dir, err := registry.DefaultDataDir(); err == nil {
		in.DataDir = dir
	}
	return in
}

// search prints the active servers of the registries whose names match.
func (c *cli) search(args []string) int {
	fs := newFlagSet("search", c.stderr)
	reg := fs.String("registry", "", "registry URL(s), comma-separated (default $MCP_HOST_REGISTRY, else the official registry)")
	refresh := fs.Bool("refresh", false, "ask the registry even when the cache is fresh")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := c.installer(*reg, "", "").Search(ctx, strings.Join(pos, " "), *refresh)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			// The network's words, not the request URL's query.
			where := *reg
			if where == "" {
				where = os.Getenv("MCP_HOST_REGISTRY")
			}
			if where == "" {
				where = "the official registry"
			}
			return c.failf(exitFailure, "search: cannot reach %s (%v) and no answer of it is cached; name another with --registry URL or $MCP_HOST_REGISTRY", where, ue.Err)
		}
		return c.failf(exitFailure, "search: %v", err)
	}
	if *asJSON {
		return c.writeJSON(r)
	}
	age := registry.Age(r, time.Now())
	if r.Unreachable != "" {
		c.warnf("showing the cached answer (%s): %s", age, r.Unreachable)
	}
	if len(r.Entries) == 0 {
		fmt.Fprintf(c.stdout, "no active servers match (%s)\n", age)
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tKINDS\tDESCRIPTION\tAGE")
	for _, e := range r.Entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termsafe.LineMax(e.Server.Name, 60), termsafe.LineMax(e.Server.Version, 20),
			termsafe.LineMax(strings.Join(e.Server.Kinds(), ","), 40), termsafe.LineMax(e.Server.Description, 70), age)
	}
	_ = tw.Flush()
	if r.Truncated {
		fmt.Fprintln(c.stdout, "(more servers match: narrow the search)")
	}
	return exitOK
}

// registryAdd is what "add --from-registry" was given.
type registryAdd struct {
	id, spec, scope, use, registries string
	vars                             []string
	yes, replace                     bool
}

// addFromRegistry fetches the entry, asks for what it needs, shows what
// will run, and writes the entry once confirmed.
func (c *cli) addFromRegistry(a registryAdd) int {
	values, err := keyValues("var", a.vars)
	if err != nil {
		return c.failf(exitUsage, "add %s: %v", a.id, err)
	}
	path, err := c.scopePath(a.scope)
	if err != nil {
		return c.failf(exitUsage, "add: %v", err)
	}
	in := c.installer(a.registries, a.scope, path)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	name, version := registry.SplitSpec(a.spec)
	e, err := in.Fetch(ctx, name, version, "")
	if err != nil {
		return c.failf(exitFailure, "add %s: %v", a.id, err)
	}
	pl, code := c.prepare(ctx, in, e, registry.Options{Use: a.use, Values: values, ID: a.id}, "add "+a.id)
	if pl == nil {
		return code
	}
	fmt.Fprintf(c.stderr, "%s@%s (%s from %s) will run:\n  %s\n", termsafe.Line(e.Server.Name), termsafe.Line(e.Server.Version), pl.Kind, termsafe.Line(e.Registry), termsafe.Line(registry.CommandLine(pl.Config)))
	// What its sandbox will grant it, before the user says yes: the
	// paths its command line names among them.
	for _, l := range sandboxNotice(a.id, pl.Config, sandboxOptions(c.global, c.project)) {
		fmt.Fprintln(c.stderr, "  "+termsafe.Line(l))
	}
	if code := c.confirmWrite(a.yes, "add "+a.id, path); code >= 0 {
		return code
	}
	if err := registry.Write(path, a.id, pl, a.replace); err != nil {
		return c.failf(exitUsage, "add: %v (use --replace)", err)
	}
	fmt.Fprintf(c.stdout, "added %s (%s %s@%s) to %s\n", a.id, pl.Kind, termsafe.Line(e.Server.Name), termsafe.Line(e.Server.Version), path)
	c.printSecrets(pl)
	return exitOK
}

// prepare builds the plan, asking on the terminal for each required value
// nobody gave; without a terminal it fails naming them all.
func (c *cli) prepare(ctx context.Context, in *registry.Installer, e registry.Entry, o registry.Options, what string) (*registry.Plan, int) {
	if o.Values == nil {
		o.Values = map[string]string{}
	}
	pl, err := in.Prepare(ctx, e, o)
	if err != nil {
		code := exitFailure
		switch {
		case errors.Is(err, registry.ErrCannotRun):
			code = exitUsage
		case errors.Is(err, registry.ErrRefused):
			code = exitDenied
		}
		return nil, c.failf(code, "%s: %v (nothing was written)", what, err)
	}
	if len(pl.Missing) == 0 {
		return pl, -1
	}
	if !c.interactive() {
		var keys []string
		for _, m := range pl.Missing {
			keys = append(keys, fmt.Sprintf("--var %s=...", m.Key))
		}
		return nil, c.failf(exitUsage, "%s: %s needs values: %s (nothing was written)", what, e.Server.Name, strings.Join(keys, " "))
	}
	for _, m := range pl.Missing {
		hint := termsafe.LineMax(m.Description, 120)
		if len(m.Choices) > 0 {
			hint += " [" + termsafe.LineMax(strings.Join(m.Choices, "|"), 80) + "]"
		}
		fmt.Fprintf(c.stderr, "%s (%s): ", termsafe.Line(m.Key), hint)
		v, err := c.readLine()
		if err != nil {
			return nil, c.failf(exitUsage, "%s: no value for %s", what, m.Key)
		}
		o.Values[m.Key] = v
	}
	return c.prepare(ctx, in, e, o, what)
}

// confirmWrite asks before a registry entry is written: --yes skips the
// question; without a terminal and without --yes it refuses.
func (c *cli) confirmWrite(yes bool, what, path string) int {
	if yes {
		return -1
	}
	if !c.interactive() {
		return c.failf(exitDenied, "%s: refusing to write without confirmation: no terminal to ask on (pass --yes)", what)
	}
	fmt.Fprintf(c.stderr, "Write it to %s? [y/N] ", path)
	a, _ := c.readLine()
	if a = strings.ToLower(a); a != "y" && a != "yes" {
		return c.failf(exitDenied, "%s: not confirmed; nothing was written", what)
	}
	return -1
}

// printSecrets says which variables the entry reads its secrets from:
// they are in no file, the host expands them from its environment.
func (c *cli) printSecrets(pl *registry.Plan) {
	if len(pl.Secrets) == 0 {
		return
	}
	fmt.Fprintln(c.stdout, "Its secrets are not stored: set them in the environment the host runs in:")
	for _, s := range pl.Secrets {
		state := "not set now"
		if _, ok := os.LookupEnv(s.Key); ok {
			state = "set now"
		}
		fmt.Fprintf(c.stdout, "  export %s=...   # %s (%s)\n", s.Key, termsafe.LineMax(s.Description, 80), state)
	}
}

// update offers the latest version of a server added from a registry: it
// shows the old and the new command line and writes the new one once
// confirmed. A project server's approval is for its old command line, so
// it must be approved again.
func (c *cli) update(args []string) int {
	fs := newFlagSet("update", c.stderr)
	scope := fs.String("scope", "global", "the file the server is in: project or global")
	yes := fs.Bool("yes", false, "write without asking")
	var vars multiFlag
	fs.Var(&vars, "var", "value NAME=value for the new version (repeatable)")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "update: want one server id")
	}
	id := pos[0]
	path, err := c.scopePath(*scope)
	if err != nil {
		return c.failf(exitUsage, "update: %v", err)
	}
	var old *config.ServerConfig
	if err := config.PreviewEdit(path, func(f *config.File) error { old = f.MCP.Servers[id]; return nil }); err != nil {
		return c.failf(exitUsage, "update: %v", err)
	}
	if old == nil {
		return c.failf(exitUsage, "update: no server %q in %s", id, path)
	}
	src := old.Registry
	if src == nil {
		return c.failf(exitUsage, "update %s: it was not added from a registry (host mcp add %s --from-registry NAME --replace)", id, id)
	}
	values := registry.ValuesFrom(*old)
	given, err := keyValues("var", vars)
	if err != nil {
		return c.failf(exitUsage, "update %s: %v", id, err)
	}
	for k, v := range given {
		values[k] = v
	}
	in := c.installer("", *scope, path)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := in.Fetch(ctx, src.Name, "latest", src.URL)
	if err != nil {
		return c.failf(exitFailure, "update %s: %v", id, err)
	}
	if e.Server.Version == src.Version {
		fmt.Fprintf(c.stdout, "%s is up to date (%s@%s)\n", id, termsafe.Line(src.Name), termsafe.Line(src.Version))
		return exitOK
	}
	pl, code := c.prepare(ctx, in, e, registry.Options{Use: src.Package, Values: values, ID: id}, "update "+id)
	if pl == nil {
		return code
	}
	fmt.Fprintf(c.stderr, "%s: %s %s -> %s\n  now: %s\n  new: %s\n", id, termsafe.Line(src.Name), termsafe.Line(src.Version), termsafe.Line(e.Server.Version),
		termsafe.Line(registry.CommandLine(*old)), termsafe.Line(registry.CommandLine(pl.Config)))
	if code := c.confirmWrite(*yes, "update "+id, path); code >= 0 {
		return code
	}
	if err := registry.Write(path, id, pl, true); err != nil {
		return c.failf(exitFailure, "update: %v", err)
	}
	fmt.Fprintf(c.stdout, "updated %s to %s@%s in %s\n", id, termsafe.Line(e.Server.Name), termsafe.Line(e.Server.Version), path)
	if *scope == "project" {
		fmt.Fprintf(c.stdout, "Its command line changed: approve it again with host mcp approve %s\n", id)
	}
	c.printSecrets(pl)
	return exitOK
}
