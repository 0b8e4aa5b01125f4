package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// runBrowserScript runs e2e/node/<script> in Debian's chromium (through
// playwright-core) against a host web address, and decodes the JSON the
// script wrote to its result file into result. The script's own "error"
// field, or its failure to run, fails t with what it printed. It is the
// one place the web tests start a browser script.
func runBrowserScript(t *testing.T, script, address string, result any) {
	t.Helper()
	chromium, node := testenv.Playwright(t)
	file := filepath.Join(t.TempDir(), "result.json")
	cmd := exec.Command(node, filepath.Join(testenv.RepoRoot(t), "e2e", "node", script), address, file)
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	out, runErr := cmd.CombinedOutput()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%s: the browser wrote no result (%v): %v\n%s", script, runErr, err, out)
	}
	t.Logf("%s: the browser saw: %s", script, data)
	var failed struct{ Error string }
	if err := json.Unmarshal(data, &failed); err != nil {
		t.Fatalf("%s: result: %v", script, err)
	}
	if failed.Error != "" || runErr != nil {
		t.Fatalf("%s: the browser failed: %s\n%v\n%s", script, failed.Error, runErr, out)
	}
	if err := json.Unmarshal(data, result); err != nil {
		t.Fatalf("%s: result: %v", script, err)
	}
}
