package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// A mistyped client gets the sources and a suggestion (usage, exit 2); a
// client whose files do not exist says so and exits 1, not 2.
func TestImportNamesItsSources(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Chdir(dir)
	run := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		c := &cli{stdout: &out, stderr: &errOut, global: filepath.Join(dir, "g.json")}
		code := c.importServers(args)
		return out.String() + errOut.String(), code
	}
	out, code := run("--from", "claude", "--dry-run")
	if code != exitUsage || !strings.Contains(out, "did you mean claude-code?") || !strings.Contains(out, "--from takes claude-code, claude-desktop, codex, cursor, gemini, vscode, or a file's path") {
		t.Errorf("--from claude: exit %d\n%s", code, out)
	}
	out, code = run("--from", "claude-code", "--dry-run")
	if code != exitFailure || !strings.Contains(out, "nothing to import: none of its files exists") {
		t.Errorf("--from claude-code without its files: exit %d\n%s", code, out)
	}
}

// A registry that cannot be reached is named with the network's words and
// the ways to name another, not a request URL with masked query values.
func TestSearchUnreachableRegistry(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("MCP_HOST_REGISTRY", "http://127.0.0.1:1")
	var out, errOut bytes.Buffer
	c := &cli{stdout: &out, stderr: &errOut, global: filepath.Join(dir, "g.json")}
	code := c.search([]string{"memory"})
	msg := errOut.String()
	if code != exitFailure || !strings.Contains(msg, "cannot reach http://127.0.0.1:1 (dial tcp") || !strings.Contains(msg, "--registry URL or $MCP_HOST_REGISTRY") || strings.Contains(msg, "***") {
		t.Errorf("exit %d:\n%s", code, msg)
	}
}
