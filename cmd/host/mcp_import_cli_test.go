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
