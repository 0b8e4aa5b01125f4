package main

import (
	"os"
	"path/filepath"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/mcp-host/mcp-host/tokenstore"
)

// sandboxOptions confine stdio servers with this binary as the launcher
// (main hands sandbox.LauncherArg to sandbox.LauncherMain), keeping every
// server out of the host's own state: config files, token file,
// approvals, permissions, caches. $MCP_HOST_SANDBOX=off turns the sandbox
// off for this process (for diagnosis; "sandbox": false in the global
// config is the per-server switch).
func sandboxOptions(global, project string) *runtime.SandboxOptions {
	if os.Getenv("MCP_HOST_SANDBOX") == "off" {
		return nil
	}
	o := &runtime.SandboxOptions{}
	if self, err := os.Executable(); err == nil {
		o.Launcher = launcherPath(self)
	}
	dir := filepath.Dir(global)
	o.HostPaths = []string{global, filepath.Join(tokenStoreDir(global), tokenstore.FileName),
		approval.DefaultPath(global), defaultPermissions(global)}
	if filepath.Base(dir) == "mcp-host" {
		o.HostPaths = append(o.HostPaths, dir) // the lock files and whatever else lives there
	}
	if p, err := listcache.DefaultPath(); err == nil {
		o.HostPaths = append(o.HostPaths, p)
	}
	if c, err := os.UserCacheDir(); err == nil {
		o.HostPaths = append(o.HostPaths, filepath.Join(c, "mcp-host"))
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

// launcherName is the launcher-only binary (cmd/host-sandbox) that make
// build puts next to host.
const launcherName = "host-sandbox"

// launcherPath is the sandbox launcher for the host binary self:
// host-sandbox beside it when it is there (a server starts faster through
// it, see docs/SANDBOX.md), else self, which runs the same launcher.
func launcherPath(self string) string {
	side := filepath.Join(filepath.Dir(self), launcherName)
	if fi, err := os.Stat(side); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return side
	}
	return self
}
