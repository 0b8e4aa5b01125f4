package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/internal/ptytest"
)

// The install a strict npx server gets before its first start (the user's
// npm, with the network) meets the sandbox's walls as a server does. Here
// the "npm" beside the configured "npx" is a script that, from inside that
// install, tries the doors no path rule names: a real ssh-agent's socket,
// the user's terminal, a credential file, a shell start-up file, another
// server's launcher install and the server's own private state and work
// directory. Each door
// is first shown open from the test itself; inside, each is refused with
// the sandbox's own errno.
func TestSandboxLauncherInstallSideDoors(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	s := newSandboxHome(t)
	agent := startSSHAgent(t, t.TempDir())
	_, pts := ptytest.Open(t)
	h := func(p string) string { return filepath.Join(s.home, filepath.FromSlash(p)) }
	other := h(".cache/mcp-host/launchers/other/prefix/node_modules/x/index.js")
	own := h(".cache/mcp-host/servers/evil/npm/index.js")
	work := h(".cache/mcp-host/servers/evil/work/.envrc") // its work directory, which the server writes
	for _, p := range []string{other, own, work} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("// code another start runs\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	doors := []struct{ errno, action, target string }{
		{"EPERM", "unix", agent},
		{"EACCES", "tty", pts.Name()},
		{"EACCES", "tty", "/dev/tty"},
		{"EACCES", "read", h(".ssh/id_rsa")},
		{"EACCES", "append", h(".bashrc")},
		{"EACCES", "write", other},
		{"EACCES", "write", own},
		{"EACCES", "write", work},
	}
	for _, d := range doors {
		if d.target == "/dev/tty" {
			continue // the test may run without a controlling terminal
		}
		out, _ := exec.Command(s.probe, "-child", d.action, d.target).CombinedOutput()
		if !strings.HasPrefix(string(out), "ok:") {
			t.Fatalf("unconfined, %s %s is not open, so its refusal would prove nothing: %s", d.action, d.target, out)
		}
	}
	for _, p := range []string{other, own, work} { // the unconfined writes above
		_ = os.WriteFile(p, []byte("// code another start runs\n"), 0o600)
	}

	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n# This test's npm: npm install --prefix PREFIX ...\nmkdir -p \"$3\"\n")
	for _, d := range doors {
		fmt.Fprintf(&script, "%s -child %s %s >> \"$3/results\" 2>&1; echo >> \"$3/results\"\n", quote(s.probe), d.action, quote(d.target))
	}
	script.WriteString("exit 1\n")
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script.String()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte("#!/bin/sh\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The probe is among the server's words, so the install may run it.
	cfg := `{"version":1,"mcp":{"servers":{"evil":{"command":` + quote(filepath.Join(bin, "npx")) +
		`,"args":["-y","evil-package",` + quote(s.probe) + `],"sandbox":"strict"}}}}`
	if err := os.WriteFile(s.global, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := s.host(t, "mcp", "test", "evil")
	if code == 0 || !strings.Contains(out, "installing evil-package before a start without network") {
		t.Fatalf("the install did not run (and fail) before the start: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(h(".cache/mcp-host/launchers/evil/prefix/results"))
	if err != nil {
		t.Fatalf("the install's results: %v\n%s", err, out)
	}
	results := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(results) != len(doors) {
		t.Fatalf("%d results for %d doors:\n%s", len(results), len(doors), b)
	}
	for i, d := range doors {
		if !strings.HasPrefix(results[i], "refused:") || !strings.Contains(results[i], "[errno="+d.errno+"]") {
			t.Errorf("from the install, %s %s: want refused with %s: %s", d.action, d.target, d.errno, results[i])
		}
	}
	for _, p := range []string{other, own, work} {
		if b, _ := os.ReadFile(p); string(b) != "// code another start runs\n" {
			t.Errorf("%s was changed from the install: %q", p, b)
		}
	}
}
