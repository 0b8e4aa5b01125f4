package core_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCoreImportsNothingMCP keeps core MCP-agnostic: every package core and
// its subpackages depend on is either in the standard library or under core
// itself, so neither the MCP SDK nor anything under runtime/ can creep in.
func TestCoreImportsNothingMCP(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goBin, "list", "-deps", "-test", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/mcp-host/mcp-host/core/...")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list -deps: %v\n%s", err, stderr)
	}
	const coreRoot = "github.com/mcp-host/mcp-host/core"
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		seen++
		// Test variants look like "pkg [pkg.test]", external test packages
		// "pkg_test [pkg.test]" and test mains "pkg.test".
		path := strings.Fields(line)[0]
		path = strings.TrimSuffix(strings.TrimSuffix(path, ".test"), "_test")
		if path == coreRoot || strings.HasPrefix(path, coreRoot+"/") {
			continue
		}
		t.Errorf("core depends on %s; core may import only the standard library and its own packages", line)
	}
	if seen == 0 {
		t.Fatal("go list printed no packages; the check would pass vacuously")
	}
}
