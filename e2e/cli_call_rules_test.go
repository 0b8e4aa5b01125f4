package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/permission"
)

// TestCLICallHonoursRulesAndRememberedAnswers runs the built binary's
// `host mcp call` against a stdio server: a --deny rule refuses the call
// with exit 4 and names the rule, whatever --yes or a remembered answer
// say, and the tool never runs (hang would create its file); an --allow
// rule and an "always allow" remembered in permissions.json (as host serve
// and host chat store it) each let a call run with no terminal and no
// --yes.
func TestCLICallHonoursRulesAndRememberedAnswers(t *testing.T) {
	bin := buildHostile(t)
	h := newHostCLI(t)
	// In the server's cwd, which its sandbox lets it write: were the tool
	// to run, the file would be there.
	hangFile := filepath.Join(h.dir, "hang-ran")
	addStdio(t, h, "files", bin, "-hang-file", hangFile)

	_, errOut, code := h.run(t, nil, "mcp", "call", "files", "hang", "--deny", "files/h*", "--yes")
	if code != 4 || !strings.Contains(errOut, "denied by rule files/h*") {
		t.Errorf("--deny with --yes: code %d, stderr %q; want 4 naming the rule", code, errOut)
	}
	if _, err := os.Stat(hangFile); err == nil {
		t.Error("the denied tool ran")
	}

	out, errOut, code := h.run(t, nil, "mcp", "call", "files", "echo", "--args", `{"text":"by rule"}`, "--allow", "files/echo")
	if code != 0 || !strings.Contains(out, "by rule") {
		t.Errorf("--allow: code %d\n%s%s", code, out, errOut)
	}

	store, err := permission.OpenStore(filepath.Join(filepath.Dir(h.global), "permissions.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AllowServer("files"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = h.run(t, nil, "mcp", "call", "files", "echo", "--args", `{"text":"remembered"}`)
	if code != 0 || !strings.Contains(out, "remembered") {
		t.Errorf("remembered always-allow: code %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = h.run(t, nil, "mcp", "call", "files", "echo", "--args", `{"text":"remembered"}`, "--deny", "*/echo")
	if code != 4 || strings.Contains(out, "remembered") || !strings.Contains(errOut, "denied by rule */echo") {
		t.Errorf("--deny over a remembered answer: code %d\n%s%s", code, out, errOut)
	}
}
