package e2e_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// TestTypeScriptClientPackage runs the tests of clients/typescript
// (@mcp-host/client) with Node 22 against the host binary under test, and
// checks that `npm pack` ships the generated files.
func TestTypeScriptClientPackage(t *testing.T) {
	node := testenv.Node(t)
	dir := filepath.Join(testenv.RepoRoot(t), "clients", "typescript")
	cmd := exec.Command(node, "--test", "test/client.test.js")
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "MCP_HOST_BIN="+buildHost(t), "MCP_HOST_CACHE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\n# fail 0") || !strings.Contains(string(out), "\n# skipped 0") {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("node --test clients/typescript: %s", strings.Join(strings.Fields(string(out[strings.LastIndex(string(out), "# tests"):])), " "))

	npm, err := exec.LookPath("npm")
	testenv.Require(t, "npm", err)
	pack := exec.Command(npm, "pack", "--dry-run", "--json")
	pack.Dir = dir
	pack.Env = append(pack.Environ(), "npm_config_update_notifier=false", "npm_config_cache="+t.TempDir())
	out, err = pack.Output()
	if err != nil {
		t.Fatalf("npm pack --dry-run: %v\n%s", err, out)
	}
	var res []struct {
		Name  string `json:"name"`
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res) != 1 {
		t.Fatalf("npm pack --json: %v\n%s", err, out)
	}
	files := map[string]bool{}
	for _, f := range res[0].Files {
		files[f.Path] = true
	}
	for _, f := range []string{"package.json", "index.js", "index.d.ts", "versions.js", "versions.d.ts", "schema.json", "README.md"} {
		if !files[f] {
			t.Errorf("npm pack leaves out %s (it packs %v)", f, files)
		}
	}
	if res[0].Name != "@mcp-host/client" || files["test/client.test.js"] {
		t.Errorf("package %q packs %v", res[0].Name, files)
	}
}
