package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// ErrRefused is matched by the error of [Installer.Prepare] when its
// Check (the managed policy) refuses what the entry would run.
var ErrRefused = errors.New("refused")

// Installer searches the configured registries and prepares what an entry
// needs before it is written: the CLI and the UI protocol share it.
type Installer struct {
	// Registries are the base URLs, in order (see [URLs]).
	Registries []string
	// HTTP sends every request; nil means a client with DefaultTimeout.
	HTTP *http.Client
	// Cache keeps search answers; nil means none.
	Cache *Cache
	// DataDir is where bundles are unpacked (see [DefaultDataDir]).
	DataDir string
	// LookPath finds programs; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Check, when set, judges the entry a plan would write (what it runs
	// or connects to): an organization's managed policy refuses here,
	// before anything is written. Its error is the plan's.
	Check func(id string, c config.ServerConfig) error
}

func (in *Installer) client(u string) *Client {
	return &Client{URL: u, HTTP: in.HTTP, Cache: in.Cache}
}

// Search searches every registry and joins the answers in order. The
// registries match the first word of query against server names; every
// other word must then appear in the name, title or description (case
// ignored). The result is as old as its oldest part; one registry failing
// fails the search, naming it.
func (in *Installer) Search(ctx context.Context, query string, refresh bool) (*Result, error) {
	out := &Result{Entries: []Entry{}}
	fields := strings.Fields(query)
	first, words := "", strings.Fields(strings.ToLower(query))
	if len(fields) > 0 {
		first = fields[0] // as typed: the registry decides how names match
	}
	for _, u := range in.Registries {
		r, err := in.client(u).Search(ctx, first, refresh)
		if err != nil {
			return nil, err
		}
		for _, e := range r.Entries {
			if matchesAll(e, words[min(1, len(words)):]) {
				out.Entries = append(out.Entries, e)
			}
		}
		if out.FetchedAt.IsZero() || r.FetchedAt.Before(out.FetchedAt) {
			out.FetchedAt = r.FetchedAt
		}
		out.FromCache = out.FromCache || r.FromCache
		out.Truncated = out.Truncated || r.Truncated
		if r.Unreachable != "" {
			out.Unreachable = strings.TrimPrefix(out.Unreachable+"; ", "; ") + r.Unreachable
		}
	}
	return out, nil
}

// Fetch gets name at version ("" or "latest" for the latest) from the
// first registry that has it; from, when set, names the only registry to
// ask (an installed entry's).
func (in *Installer) Fetch(ctx context.Context, name, version, from string) (Entry, error) {
	urls := in.Registries
	if from != "" {
		urls = []string{from}
	}
	var errs []error
	for _, u := range urls {
		e, err := in.client(u).Get(ctx, name, version)
		if err == nil {
			return e, nil
		}
		errs = append(errs, err)
		if !errors.Is(err, ErrNotFound) {
			break
		}
	}
	return Entry{}, errors.Join(errs...)
}

// Prepare builds the plan for e and, once nothing is missing, installs an
// mcpb bundle so the plan's command line is final, and asks Check. A
// package this machine cannot run fails here, before anything is written
// to a configuration.
func (in *Installer) Prepare(ctx context.Context, e Entry, o Options) (*Plan, error) {
	if o.LookPath == nil {
		o.LookPath = in.LookPath
	}
	pl, err := Build(e, o)
	if err != nil || len(pl.Missing) > 0 {
		return pl, err
	}
	if pl.Kind != "mcpb" {
		return pl, in.check(pl)
	}
	dir := in.DataDir
	if dir == "" {
		if dir, err = DefaultDataDir(); err != nil {
			return nil, err
		}
	}
	b, err := InstallBundle(ctx, in.HTTP, *pl.Package, e.Server.Name, e.Server.Version, dir, o.LookPath)
	if err != nil {
		return nil, err
	}
	pl.UseBundle(b)
	return pl, in.check(pl)
}

func (in *Installer) check(pl *Plan) error {
	if in.Check == nil {
		return nil
	}
	if err := in.Check(pl.ID, pl.Config); err != nil {
		return fmt.Errorf("%s@%s: %w: %w", pl.Entry.Server.Name, pl.Entry.Server.Version, ErrRefused, err)
	}
	return nil
}

func matchesAll(e Entry, words []string) bool {
	text := strings.ToLower(e.Server.Name + " " + e.Server.Title + " " + e.Server.Description)
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// SplitSpec splits "name@version" ("name" alone means the latest).
func SplitSpec(spec string) (name, version string) {
	if i := strings.LastIndex(spec, "@"); i > 0 {
		return spec[:i], spec[i+1:]
	}
	return spec, ""
}

// Write puts the plan's entry under id into the configuration file at
// path. An existing id is an error unless replace; when it replaces, the
// old entry's settings that are not its definition (enabled, timeouts,
// tool filters, OAuth settings) are kept, and trust is not: a new
// definition is trusted again only by choice.
func Write(path, id string, pl *Plan, replace bool) error {
	if err := pl.Config.Validate(); err != nil {
		return fmt.Errorf("registry entry for %s: %w", id, err)
	}
	return config.EditFile(path, func(f *config.File) error {
		old, exists := f.MCP.Servers[id]
		if exists && !replace {
			return fmt.Errorf("server %q already exists in %s", id, path)
		}
		c := pl.Config
		if exists && old != nil {
			c.Enabled, c.RequestTimeoutMS, c.TaskTimeoutMS = old.Enabled, old.RequestTimeoutMS, old.TaskTimeoutMS
			c.MaxResponseBytes, c.StartupTimeoutMS, c.ProtocolVersion = old.MaxResponseBytes, old.StartupTimeoutMS, old.ProtocolVersion
			c.IncludeTools, c.ExcludeTools, c.OAuth = old.IncludeTools, old.ExcludeTools, old.OAuth
		}
		if f.MCP.Servers == nil {
			f.MCP.Servers = map[string]*config.ServerConfig{}
		}
		f.MCP.Servers[id] = &c
		return nil
	})
}

// ValuesFrom returns the values an installed entry was given that are not
// secret references: its environment and headers, so that an update asks
// only for what is new.
func ValuesFrom(c config.ServerConfig) map[string]string {
	out := map[string]string{}
	for k, v := range c.Env {
		if !strings.Contains(v, "${") {
			out[k] = v
		}
	}
	for k, v := range c.Headers {
		if !strings.Contains(v, "${") {
			out[k] = v
		}
	}
	return out
}
