package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// TestWebPromptsAndAttachments drives host web in chromium with the real
// server-everything: a prompt from the "/" menu with its arguments filled
// from the server's completions, a prompt typed whole, and a resource
// attached from a template through the attach menu; the scripted model
// sees each; a watched resource shows server-everything's updates
// (web-primitives.mjs).
func TestWebPromptsAndAttachments(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	chromium, node := testenv.Playwright(t)
	root := testenv.RepoRoot(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, primitivesScript)
	w := startWeb(t, config, script)

	result := filepath.Join(dir, "result.json")
	cmd := exec.Command(node, filepath.Join(root, "e2e", "node", "web-primitives.mjs"), w.address, result)
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	out, runErr := cmd.CombinedOutput()
	data, err := os.ReadFile(result)
	if err != nil {
		t.Fatalf("the browser wrote no result (%v): %v\n%s", runErr, err, out)
	}
	var r struct {
		Steps                             []string
		Error                             string
		Console                           []string
		Department, Names, ResourceIDs    string
		FromPrompt, AttachedLine, Watched string
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Error != "" || runErr != nil {
		t.Fatalf("the browser failed after steps %v: %s\n%v\nconsole: %s\n%s", r.Steps, r.Error, runErr, strings.Join(r.Console, "\n"), out)
	}
	for _, l := range r.Console {
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "pageerror") {
			t.Errorf("the page logged %q", l)
		}
	}
	if !strings.Contains(r.FromPrompt, "from everything:completable-prompt") {
		t.Errorf("the prompt's turn does not say where it came from: %q", r.FromPrompt)
	}
	if !strings.Contains(r.Watched, "everything:demo://resource/dynamic/text/2") || !strings.Contains(r.Watched, "changed") {
		t.Errorf("the watched resource shows no change: %q", r.Watched)
	}
	if !strings.Contains(r.AttachedLine, "attached everything:demo://resource/dynamic/text/2") {
		t.Errorf("the message does not show its attachment: %q", r.AttachedLine)
	}
}
