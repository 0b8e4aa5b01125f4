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

// The README's strict example works as written: `host mcp add sfiles
// --sandbox strict --sandbox-write DIR -- npx -y
// @modelcontextprotocol/server-filesystem DIR`, then `host mcp test` and a
// call. Strict has no network, and npm writes its cache even offline, so
// before the first start the host installs the package with the user's own
// npm (pointed here at a loopback registry: tests reach loopback only),
// with the network, without install scripts, into the server's launcher
// directory (among the host's own state); the server then runs from there
// without npm, may read it and may not change it: the sandbox refuses the
// write with EACCES even when the server's own arguments name the
// installed package's directory. Before this, the start failed with npm's
// ENOTCACHED.
func TestSandboxStrictNpx(t *testing.T) {
	t.Parallel() // waits on npm and node most of its time (package doc: Parallel tests)
	npx, err := exec.LookPath("npx")
	testenv.Require(t, "npx (Debian's npm)", err)
	reg := newNPMRegistry(t)
	s := newSandboxHome(t)
	s.env = append(s.env, "npm_config_registry="+reg.URL, "PATH="+filepath.Dir(testenv.Node(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := filepath.Join(s.home, "sfiles-data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// The installed package's own directory is the server's second
	// allowed directory (its words, which strict grants nothing): its own
	// path check lets a write there through, to the sandbox.
	installed := filepath.Join(s.home, ".cache", "mcp-host", "launchers", "sfiles", "prefix", "node_modules", "@modelcontextprotocol", "server-filesystem")
	if out, code := s.host(t, "mcp", "add", "sfiles", "--sandbox", "strict", "--sandbox-write", dir, "--", npx, "-y", "@modelcontextprotocol/server-filesystem", dir, installed); code != 0 {
		t.Fatalf("mcp add: exit %d\n%s", code, out)
	}
	out, code := s.host(t, "mcp", "test", "sfiles")
	if code != 0 || !strings.Contains(out, "ok: sfiles is ready") {
		t.Fatalf("mcp test under strict with npx: exit %d\n%s", code, out)
	}
	fetched := reg.Tarballs.Load()
	if fetched == 0 {
		t.Fatalf("no tarball was fetched from the loopback registry, yet the server started:\n%s", out)
	}
	call := func(tool string, args map[string]any) (string, int) {
		b, _ := json.Marshal(args)
		return s.host(t, "mcp", "call", "sfiles", tool, "--args", string(b), "--yes")
	}
	if out, code := call("write_file", map[string]any{"path": filepath.Join(dir, "a.txt"), "content": "strict"}); code != 0 {
		t.Fatalf("write_file in the granted directory: exit %d\n%s", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "strict" {
		t.Fatalf("the granted directory after write_file: %q, %v", b, err)
	}
	// The second start installs nothing.
	if out, code := s.host(t, "mcp", "test", "sfiles"); code != 0 || reg.Tarballs.Load() != fetched {
		t.Fatalf("a second start: exit %d, tarballs %d then %d\n%s", code, fetched, reg.Tarballs.Load(), out)
	}
	out, _ = s.host(t, "mcp", "get", "sfiles")
	if !strings.Contains(out, "installed with the network before its first start, without running its code") || !strings.Contains(out, "network none") {
		t.Errorf("mcp get does not say how the package came or that it has no network:\n%s", out)
	}
	// Its program may not be changed by the server: the install is read
	// only, refused by the sandbox itself.
	target := filepath.Join(installed, "package.json")
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the install: %v", err)
	}
	out, _ = call("write_file", map[string]any{"path": target, "content": "{}"})
	if b, _ := os.ReadFile(target); string(b) == "{}" {
		t.Fatalf("the server rewrote its own installed package:\n%s", out)
	}
	if !strings.Contains(out, "EACCES") {
		t.Errorf("the refused write is not the sandbox's EACCES:\n%s", out)
	}
}
