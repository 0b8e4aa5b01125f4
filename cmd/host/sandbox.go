package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/mcp-host/mcp-host/runtime/registry"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
	"github.com/mcp-host/mcp-host/tokenstore"
)

// sandboxOptions confine stdio servers, keeping every
// server out of the host's own state: config files, token file,
// approvals, permissions, caches. There is no switch to turn it off for a
// whole process: "sandbox": false in the global config is the per-server
// one, which a managed policy's "sandbox_required" sees.
func sandboxOptions(global, project string) *runtime.SandboxOptions {
	o := &runtime.SandboxOptions{}
	dir := filepath.Dir(global)
	o.HostPaths = []string{global, filepath.Join(tokenStoreDir(global), tokenstore.FileName),
		approval.DefaultPath(global), defaultPermissions(global)}
	if filepath.Base(dir) == "mcp-host" {
		o.HostPaths = append(o.HostPaths, dir) // the lock files and whatever else lives there
	}
	if p, err := listcache.DefaultPath(); err == nil {
		o.HostPaths = append(o.HostPaths, p)
	}
	if d, err := registry.DefaultDataDir(); err == nil {
		// Installed bundles: a server reads its own (its program's
		// files), never writes one, whatever its arguments name.
		o.HostPaths = append(o.HostPaths, d)
	}
	if c, err := os.UserCacheDir(); err == nil {
		o.HostPaths = append(o.HostPaths, filepath.Join(c, "mcp-host"))
		// Each server's private state lies inside the host's cache, which
		// the other servers may not read.
		o.StateRoot = filepath.Join(c, "mcp-host", "servers")
	}
	// The project's .mcp-host/config.json is not among them: it usually
	// lies in the server's working directory, which the default policy
	// lets it write whole (Landlock cannot carve a file out of a granted
	// directory without taking the directory's own write right with it).
	// A server that edits it changes a definition, which asks for
	// approval again.
	_ = project
	return o
}

// sandboxFlags is host mcp add's --sandbox (default, strict, false or a
// JSON object) with the --sandbox-read and --sandbox-write grants added;
// nil when none is given.
func sandboxFlags(policy string, read, write []string) (*sandbox.Policy, error) {
	if policy == "" && len(read) == 0 && len(write) == 0 {
		return nil, nil
	}
	raw := policy
	switch policy {
	case "":
		raw = "{}"
	case sandbox.BaseDefault, sandbox.BaseStrict:
		raw = `"` + policy + `"`
	case "off", "false":
		raw = "false"
	default:
		if !strings.HasPrefix(strings.TrimSpace(policy), "{") {
			return nil, fmt.Errorf("--sandbox: want default, strict, false or a JSON object, got %q", policy)
		}
	}
	var p sandbox.Policy
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return nil, fmt.Errorf("--%w", err)
	}
	if p.Off && (len(read) > 0 || len(write) > 0) {
		return nil, fmt.Errorf("--sandbox false grants nothing: drop --sandbox-read/--sandbox-write")
	}
	p.Read, p.Write = append(p.Read, read...), append(p.Write, write...)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("--%w", err)
	}
	return &p, nil
}

// sandboxNotice says what host mcp add's stdio server will be allowed: the
// policy in one line, and each directory its arguments name that the
// policy does not let it write (or, under strict, read): a path in the
// arguments is never granted silently.
func sandboxNotice(id string, cfg config.ServerConfig, so *runtime.SandboxOptions) []string {
	if cfg.TransportName() != "stdio" {
		return nil
	}
	eff, err := sandbox.Resolve(cfg.SandboxPolicy(), runtime.SandboxContext(so, id, &cfg, cfg.Command, ""))
	if err != nil {
		return nil
	}
	eff.PlanProxy()
	lines := []string{"sandbox: " + eff.Summary()}
	if eff.Off {
		return lines
	}
	for _, p := range sandbox.Protections(eff) {
		if strings.Contains(p, "not enforced") || strings.Contains(p, "not protected") {
			lines = append(lines, "sandbox: "+p)
		}
	}
	here, _ := os.Getwd()
	for _, a := range cfg.Args {
		if !filepath.IsAbs(a) {
			// "." or "./data": resolved in the server's own working
			// directory, not where add ran.
			if cfg.Cwd == "" && (a == "." || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../")) {
				if abs := filepath.Join(here, a); here != "" {
					lines = append(lines, fmt.Sprintf("note: %s is relative: the server runs in %s, not here; for this directory write %s (or set --cwd)", a, eff.Cwd, abs))
				}
			}
			continue
		}
		if fi, err := os.Stat(a); err != nil || !fi.IsDir() {
			continue
		}
		switch {
		case !covers(eff.Write, a) && !covers(eff.Read, a):
			lines = append(lines, fmt.Sprintf("not granted: %s (named in its arguments); to let it read and write there: --sandbox-write %s, read only: --sandbox-read %s", a, a, a))
		case !covers(eff.Write, a):
			lines = append(lines, fmt.Sprintf("not writable: %s (named in its arguments); to let it write there: --sandbox-write %s", a, a))
		}
	}
	return lines
}

// covers reports whether p is one of dirs or inside one.
func covers(dirs []string, p string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !filepath.IsAbs(rel) && (rel == "." || !startsWithDotDot(rel)) {
			return true
		}
	}
	return false
}

func startsWithDotDot(rel string) bool {
	return rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator)
}
