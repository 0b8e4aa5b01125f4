//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-host/mcp-host/internal/ptytest"
)

// buildHelper builds cmd/host-confine once for the package's tests.
var buildHelper = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "host-confine-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "host-confine")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/mcp-host/mcp-host/cmd/host-confine")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: %s", err, out)
	}
	return bin, nil
})

// useHelper makes this test's starts use the helper at path ("" for
// none, with why), as if it were installed beside the host.
func useHelper(t testing.TB, path, why string) {
	t.Helper()
	saved := helperState
	if path != "" {
		path, why = checkHelper(path)
	}
	helperState = func() (string, string) { return path, why }
	t.Cleanup(func() { helperState = saved })
}

// repoFixture is a repository as the server's cwd, with the files that
// run code later: git hooks and config (core.hooksPath naming husky's
// .husky/_), editor tasks, direnv.
func repoFixture(t *testing.T, f fixture) string {
	t.Helper()
	repo := f.cwd
	for path, content := range map[string]string{
		".git/HEAD":                    "ref: refs/heads/main\n",
		".git/config":                  "[core]\n\thooksPath = .husky/_\n",
		".git/hooks/pre-commit.sample": "#!/bin/sh\n",
		".git/objects/info/packs":      "",
		".husky/_/pre-commit":          "#!/bin/sh\n",
		".vscode/tasks.json":           "{}",
		".envrc":                       "export A=1\n",
		"main.go":                      "package main\n",
	} {
		p := filepath.Join(repo, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// Inside a writable repository, the files that run code later are bound
// read-only in the server's own mount namespace (EROFS), .git cannot be
// moved away and remade (EBUSY), and the server cannot take a bind away
// (EPERM, Landlock); the rest of the repository, .git's objects included,
// stays writable. Without the helper, Landlock alone lets every one of
// these writes through: the door this closes.
func TestConfineCodePlaces(t *testing.T) {
	f := newFixture(t)
	helper, err := buildHelper()
	if err != nil {
		t.Fatalf("go build ./cmd/host-confine: %v", err)
	}
	repo := repoFixture(t, f)
	in := func(p string) string { return filepath.Join(repo, filepath.FromSlash(p)) }
	eff := f.resolve(t, Policy{}, repo)

	useHelper(t, "", "no helper in this test")
	expect(t, eff, repo, true, "write", in(".git/hooks/pre-commit"))
	expect(t, eff, repo, true, "write", in(".husky/_/pre-commit"))
	if p := strings.Join(Protections(eff), "\n"); !strings.Contains(p, ProtectCode+": not protected") || !strings.Contains(p, "no helper in this test") {
		t.Errorf("without the helper, the status must say the files are not protected and why:\n%s", p)
	}

	useHelper(t, helper, "")
	erofs := []string{"EROFS"}
	expectErrno(t, eff, repo, erofs, "write", in(".git/hooks/post-checkout"))
	expectErrno(t, eff, repo, erofs, "write", in(".git/hooks/pre-commit"))
	expectErrno(t, eff, repo, erofs, "write", in(".git/config"))
	expectErrno(t, eff, repo, erofs, "write", in(".husky/_/pre-commit"))
	expectErrno(t, eff, repo, erofs, "write", in(".vscode/tasks.json"))
	expectErrno(t, eff, repo, erofs, "write", in(".envrc"))
	expectErrno(t, eff, repo, []string{"EBUSY"}, "rename", in(".git"), in("git-old"))
	expectErrno(t, eff, repo, []string{"EBUSY"}, "rename", in(".vscode"), in("vscode-old"))
	expectErrno(t, eff, repo, []string{"EBUSY"}, "remove", in(".envrc"))
	expectErrno(t, eff, repo, []string{"EPERM"}, "umount", in(".git/hooks"))
	expect(t, eff, repo, true, "write", in("new.go"))
	expect(t, eff, repo, true, "write", in(".git/objects/info/packs"))
	expect(t, eff, repo, true, "mkdir", in(".git/refs"))
	// The server's children stay in its namespace.
	expectErrno(t, eff, repo, erofs, "child", "write", in(".git/config"))
	// The rest of the sandbox holds as without the helper.
	expectRefused(t, eff, repo, "read", filepath.Join(f.home, ".ssh", "id_rsa"))
	expectRefused(t, eff, repo, "kill", "0")

	p := strings.Join(Protections(eff), "\n")
	if !strings.Contains(p, ProtectCode+": enforced") || !strings.Contains(p, ".husky/_") {
		t.Errorf("with the helper, the status must say which files are kept read-only:\n%s", p)
	}
}

// A server without files that run code in its places starts as before,
// without the helper (its cost is paid only when needed).
func TestConfineNoHelperWithoutCodePlaces(t *testing.T) {
	f := newFixture(t)
	eff := f.resolve(t, Policy{}, f.cwd)
	if len(eff.Exposed) != 0 {
		t.Fatalf("fixture cwd exposes %v", eff.Exposed)
	}
	if plan := mountPlan(eff); len(plan.ReadOnly)+len(plan.Pins) != 0 {
		t.Errorf("plan = %+v, want none", plan)
	}
}

// A grant of a directory of repositories (a git server's base directory)
// protects each repository below it, one without a hooks directory too.
func TestConfineCodePlacesBelowAGrant(t *testing.T) {
	f := newFixture(t)
	helper, err := buildHelper()
	if err != nil {
		t.Fatalf("go build ./cmd/host-confine: %v", err)
	}
	dev := filepath.Join(f.home, "Developer")
	repo := filepath.Join(dev, "org", "repo")
	for _, d := range []string{filepath.Join(repo, ".git", "objects")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[core]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eff := f.resolve(t, Policy{Write: []string{dev}}, f.cwd)
	useHelper(t, helper, "")
	expectErrno(t, eff, f.cwd, []string{"EROFS"}, "write", filepath.Join(repo, ".git", "config"))
	expectErrno(t, eff, f.cwd, []string{"EROFS"}, "write", filepath.Join(repo, ".git", "hooks", "pre-commit"))
	expectErrno(t, eff, f.cwd, []string{"EBUSY"}, "rename", filepath.Join(repo, ".git"), filepath.Join(repo, "old"))
	expect(t, eff, f.cwd, true, "write", filepath.Join(repo, "README"))
	expect(t, eff, f.cwd, true, "write", filepath.Join(repo, ".git", "objects", "x"))
}

// A server started through the helper meets every other wall as one
// started from the host's thread: the helper confines itself with the
// same ruleset and filter before its exec. Each door is first shown open
// without the sandbox, and each refusal is the sandbox's own errno.
func TestConfineSideDoorsThroughTheHelper(t *testing.T) {
	f := newFixture(t)
	helper, err := buildHelper()
	if err != nil {
		t.Fatalf("go build ./cmd/host-confine: %v", err)
	}
	repo := repoFixture(t, f)
	useHelper(t, helper, "")
	sock := unixListener(t, f.home)
	ln := listen(t)
	_, port, _ := net.SplitHostPort(ln)
	_, pts := ptytest.Open(t)
	for _, probe := range [][]string{{"unix", sock}, {"mptcp", port}, {"udp"}, {"tty", pts.Name()}} {
		if out, ok := runUnconfined(t, nil, nil, probe...); !ok {
			t.Fatalf("unconfined %v: %s", probe, out)
		}
	}
	eff := f.resolve(t, Policy{Network: &Network{Mode: NetworkNone}}, repo)
	if p := strings.Join(Protections(eff), "\n"); !strings.Contains(p, ProtectCode+": enforced") {
		t.Fatalf("the helper is not in use:\n%s", p)
	}
	expectErrno(t, eff, repo, []string{"EROFS"}, "write", filepath.Join(repo, ".git", "config"))
	expectRefused(t, eff, repo, "unix", sock)
	expectRefused(t, eff, repo, "mptcp", port)
	expectRefused(t, eff, repo, "udp")
	expectRefused(t, eff, repo, "raw")
	expectRefused(t, eff, repo, "connect", ln)
	expectRefused(t, eff, repo, "tty", pts.Name())
	expectRefused(t, eff, repo, "tty", "/dev/tty")
	expectRefused(t, eff, repo, "read", filepath.Join(f.home, ".ssh", "id_rsa"))
	expectRefused(t, eff, repo, "write", filepath.Join(f.home, ".bashrc"))
	expectRefused(t, eff, repo, "kill", "0")
	expectRefused(t, eff, repo, "parent-environ")
	expectRefused(t, eff, repo, "host-mem")
	expectRefused(t, eff, repo, "child", "unix", sock)
}
