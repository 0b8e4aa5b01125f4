package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The paths a server's own args and env name are granted as the user's
// intent; its own program, broad places and command lines are not
// writable through them.
func TestWordGrants(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	notes := filepath.Join(root, "notes")
	mem := filepath.Join(root, "mem")
	script := filepath.Join(root, "lib", "node_modules", "pkg", "dist", "index.js")
	bin := filepath.Join(root, "opt", "server")
	db := filepath.Join(root, "db", "data.sqlite")
	for _, d := range []string{home, notes, mem, filepath.Dir(script), filepath.Dir(bin), filepath.Dir(db)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{script, bin, db} {
		if err := os.WriteFile(f, []byte("x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	bundle := filepath.Join(root, "data", "mcp-host", "bundles", "b", "server.js")
	if err := os.MkdirAll(filepath.Dir(bundle), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bundle, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := Context{Home: home, Command: "/usr/bin/node", HostPaths: []string{filepath.Join(root, "data", "mcp-host")},
		Args: []string{script, notes, "--db=" + db, "~", "relative/dir", bundle, "-c", "exec '" + bin + "' --flag"},
		Env:  map[string]string{"MEMORY_FILE_PATH": filepath.Join(mem, "memory.jsonl"), "TOKEN": "${SECRET}"}}
	reads, writes := wordGrants(ctx)
	for _, w := range []string{notes, mem, db, filepath.Dir(db)} {
		if !slices.Contains(writes, w) {
			t.Errorf("writes %v lack %s", writes, w)
		}
	}
	for _, r := range []string{home, bin} {
		if !slices.Contains(reads, r) || slices.Contains(writes, r) {
			t.Errorf("%s: reads %v, writes %v; want read only", r, reads, writes)
		}
	}
	for _, no := range []string{script, filepath.Dir(script), filepath.Dir(bin), bundle, filepath.Dir(bundle)} {
		if slices.Contains(writes, no) || slices.Contains(reads, no) {
			t.Errorf("%s granted: reads %v, writes %v", no, reads, writes)
		}
	}
	eff, err := Resolve(Policy{}, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(eff.Write, notes) || !slices.Contains(eff.Words, notes) {
		t.Errorf("default: %+v", eff)
	}
	if eff, _ := Resolve(Policy{Base: BaseStrict}, ctx); slices.Contains(eff.Write, notes) || slices.Contains(eff.Read, notes) {
		t.Errorf("strict grants words: %+v", eff)
	}
}

// A server's launcher caches go to its private state; offline, npm and uv
// are told so; the server's own env wins.
func TestLauncherEnv(t *testing.T) {
	state := filepath.Join(t.TempDir(), "servers", "x")
	ctx := Context{Home: t.TempDir(), StateDir: state, Env: map[string]string{"UV_CACHE_DIR": "/mine"}}
	env := LauncherEnv(ctx, true)
	if env["npm_config_cache"] != filepath.Join(state, "npm") || env["XDG_CACHE_HOME"] != filepath.Join(state, "cache") {
		t.Errorf("env %v", env)
	}
	if _, set := env["UV_CACHE_DIR"]; set {
		t.Error("the server's own UV_CACHE_DIR was replaced")
	}
	if env["npm_config_offline"] != "true" || env["UV_OFFLINE"] != "1" {
		t.Errorf("offline: %v", env)
	}
	if _, err := os.Stat(filepath.Join(state, "npm")); err != nil {
		t.Errorf("the private npm cache was not made: %v", err)
	}
	if env := LauncherEnv(ctx, false); env["npm_config_offline"] != "" {
		t.Errorf("online: %v", env)
	}
	if LauncherEnv(Context{}, false) != nil {
		t.Error("no state dir, yet an environment")
	}
}
