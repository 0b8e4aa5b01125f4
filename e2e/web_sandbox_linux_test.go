package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// TestWebMCPShowsSandboxRefusal: host web's /mcp tab shows for a server
// the sandbox refused what host mcp get shows: the sandbox and its policy
// (reads, writes with their paths, network), the hint naming the refused
// path with the exact grant that allows it, on a line of its own, and the
// last error; a running server's details show its stderr tail. Before,
// the row held only the last error, the hint buried at its end, and no
// sandbox or stderr at all.
func TestWebMCPShowsSandboxRefusal(t *testing.T) {
	t.Parallel()          // waits on processes most of its time (package doc: Parallel tests)
	testenv.Playwright(t) // a missing chromium skips (or fails) before host web starts
	s := newSandboxHome(t)
	// A server that needs a file in home, which strict does not read (as
	// TestSandboxDeniedHint), and one that runs, saying something on stderr.
	notes := filepath.Join(s.home, "notes.txt")
	probe := filepath.Join(s.home, "bin", "server")
	noisy := filepath.Join(s.home, "bin", "noisy")
	if err := os.MkdirAll(filepath.Dir(probe), 0o700); err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{
		probe: "#!/bin/sh\ncat " + notes + " >/dev/null || exit 1\n",
		noisy: "#!/bin/sh\necho 'noisy: warming up the cache' >&2\nexec " + buildHost(t) + " demo-stdio-server\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeJSONFile(t, s.global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"probe": map[string]any{"command": probe, "sandbox": "strict"},
		"noisy": map[string]any{"command": noisy, "sandbox": false},
	}}})
	script := filepath.Join(t.TempDir(), "script.json")
	writeJSONFile(t, script, []map[string]any{{"text": "ok"}})
	w := startWeb(t, s.global, script)

	var r struct {
		Row, Sandbox, Hint, LastError string
		NoisyStderr, NoisySandbox     string
	}
	runBrowserScript(t, "web-mcp-details.mjs", w.address, &r)
	grant := `"sandbox": {"filesystem": {"read": [` + quote(notes) + `]}}`
	if !strings.Contains(r.Hint, "the sandbox denied "+notes) || !strings.Contains(r.Hint, grant) {
		t.Errorf("the refused server's sandbox hint: %q; want the refused path %s and the grant %s\nrow:\n%s", r.Hint, notes, grant, r.Row)
	}
	if !strings.Contains(r.Sandbox, "active") || !strings.Contains(r.Sandbox, "strict: reads") || !strings.Contains(r.Sandbox, "writes cwd") || !strings.Contains(r.Sandbox, "network none") {
		t.Errorf("the refused server's sandbox line: %q; want its state and policy (reads, writes, network)\nrow:\n%s", r.Sandbox, r.Row)
	}
	if !strings.Contains(r.LastError, "Permission denied") || strings.Contains(r.LastError, grant) {
		t.Errorf("the refused server's last error: %q; want the error, its hint on the line of its own", r.LastError)
	}
	if !strings.Contains(r.NoisyStderr, "noisy: warming up the cache") {
		t.Errorf("the running server's details show no stderr tail: %q", r.NoisyStderr)
	}
	if !strings.Contains(r.NoisySandbox, "off") {
		t.Errorf("the unsandboxed server's sandbox line: %q; want off", r.NoisySandbox)
	}
}
