package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// @playwright/mcp, headless, as its README configures it (with Debian's
// chromium, since no browser can be downloaded here), runs under the
// default sandbox: it navigates a data: URL and takes a snapshot, and a
// wrong call gets the server's own error. Chromium needs a UNIX socket
// of its own (its singleton) and a cache directory: the supervisor lets
// the first through and the server's private cache holds the second.
func TestSandboxPlaywrightServer(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	argv := testenv.NodeBin(t, "playwright-mcp")
	chromium := testenv.Chromium(t)
	s := newSandboxHome(t)
	args := append(argv[1:], "--headless", "--isolated", "--browser", "chromium", "--executable-path", chromium)
	writeJSONFile(t, s.global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"playwright": map[string]any{"command": argv[0], "args": args},
	}}})
	call := func(tool string, in any) (string, int) {
		b, _ := json.Marshal(in)
		return s.host(t, "mcp", "call", "playwright", tool, "--args", string(b), "--yes")
	}
	out, code := call("browser_navigate", map[string]string{"url": "data:text/html,<title>sandboxed</title><h1>hello from the sandbox</h1>"})
	if code != 0 || !strings.Contains(out, "Page URL: data:text/html") {
		t.Fatalf("browser_navigate: exit %d\n%s", code, out)
	}
	// Each call is a new host process, so a new browser: navigate again
	// inside the snapshot's own call is not possible; the snapshot of a
	// fresh browser still answers.
	if out, code := call("browser_snapshot", map[string]any{}); code != 0 || !strings.Contains(out, "Page") {
		t.Errorf("browser_snapshot: exit %d\n%s", code, out)
	}
	if out, code := call("browser_navigate", map[string]any{"url": 42}); code == 0 || !strings.Contains(strings.ToLower(out), "url") {
		t.Errorf("an invalid call: exit %d\n%s", code, out)
	}
	get, _ := s.host(t, "mcp", "get", "playwright")
	if !strings.Contains(get, "UNIX sockets: enforced") {
		t.Errorf("mcp get does not say the sockets are confined:\n%s", get)
	}
}
