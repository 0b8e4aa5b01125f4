//go:build linux

package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// @cyanheads/git-mcp-server, added with host mcp add as its README
// configures it (stdio, GIT_BASE_DIR the directory holding the user's
// repositories, LOGS_DIR inside it, a git identity, signing on), runs
// under the default sandbox and works on a repository the user named:
// GIT_BASE_DIR is an absolute path in its env, so the host grants it, and
// LOGS_DIR below it is covered. Through the host binary it lists its
// tools, reports the new file as untracked, stages and commits it (the
// commit is in git log, under the identity its env gives), refuses bad
// arguments and a path outside GIT_BASE_DIR with its own errors, and
// writes its log files. Signing is what the sandbox takes away: gpg,
// which git commit -S runs, may not create ~/.gnupg (a secret place), so
// the server commits unsigned, as it does wherever signing fails. It
// needs no network: with OTEL_ENABLED unset (not "false", which its
// config reads as true) it opens no socket at all.
func TestSandboxGitServer(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	argv := testenv.NodeBin(t, "git-mcp-server")
	gitPath, err := exec.LookPath("git")
	testenv.Require(t, "git on PATH (the server runs the git command line)", err)
	s := newSandboxHome(t)

	// The README's "~/Developer/": the directory the user keeps
	// repositories in, with the server's logs beside them.
	dev := t.TempDir()
	repo := filepath.Join(dev, "repo")
	logs := filepath.Join(dev, "logs", "git-mcp-server")
	if err := os.MkdirAll(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitPath, append([]string{"-C", repo}, args...)...)
		// The test's own git reads neither the real user's config nor
		// the system's.
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("config", "user.name", "Repo Owner")
	git("config", "user.email", "owner@example.com")
	if err := os.WriteFile(filepath.Join(repo, "hello.txt"), []byte("hello from the sandbox\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	add := []string{"mcp", "add", "git",
		"-e", "MCP_TRANSPORT_TYPE=stdio",
		"-e", "MCP_LOG_LEVEL=info",
		"-e", "GIT_BASE_DIR=" + dev + "/",
		"-e", "LOGS_DIR=" + logs + "/",
		"-e", "GIT_USERNAME=MCP Agent",
		"-e", "GIT_EMAIL=agent@example.com",
		"-e", "GIT_SIGN_COMMITS=true",
		"--"}
	out, code := s.host(t, append(add, argv...)...)
	if code != 0 || !strings.Contains(out, dev+" (named in its config)") {
		t.Fatalf("mcp add: exit %d, want the grant of GIT_BASE_DIR:\n%s", code, out)
	}

	out, code = s.host(t, "mcp", "tools", "git", "--json")
	var tools []struct {
		Tool string `json:"tool"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil {
		t.Fatalf("mcp tools: exit %d\n%s", code, out)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Tool)
	}
	for _, want := range []string{"git_status", "git_add", "git_commit"} {
		if !slices.Contains(names, want) {
			t.Errorf("mcp tools: no %s among %d tools: %v", want, len(names), names)
		}
	}
	t.Logf("mcp tools: %d tools", len(names))

	call := func(tool string, args any) (string, int) {
		t.Helper()
		b, _ := json.Marshal(args)
		out, code := s.host(t, "mcp", "call", "git", tool, "--args", string(b), "--yes")
		t.Logf("mcp call git %s %s: exit %d", tool, b, code)
		return out, code
	}
	untracked := regexp.MustCompile(`"untrackedFiles": \[\s*"hello\.txt"`)
	if out, code := call("git_status", map[string]any{"path": repo}); code != 0 || !untracked.MatchString(out) {
		t.Fatalf("git_status: exit %d, want hello.txt untracked:\n%s", code, out)
	}
	staged := regexp.MustCompile(`"added": \[\s*"hello\.txt"`)
	if out, code := call("git_add", map[string]any{"path": repo, "paths": []string{"hello.txt"}}); code != 0 || !staged.MatchString(out) {
		t.Fatalf("git_add: exit %d, want hello.txt staged:\n%s", code, out)
	}
	const message = "add hello through the sandboxed git server"
	out, code = call("git_commit", map[string]any{"path": repo, "message": message})
	hash := regexp.MustCompile(`"commitHash": "([0-9a-f]{40})"`).FindStringSubmatch(out)
	if code != 0 || hash == nil {
		t.Fatalf("git_commit: exit %d, want a commit hash:\n%s", code, out)
	}
	if !strings.Contains(out, `"signed": false`) {
		t.Errorf("git_commit: signed, though gpg cannot reach ~/.gnupg:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(s.home, ".gnupg")); err == nil {
		t.Error("gpg created ~/.gnupg under the default sandbox")
	}
	if log := git("log", "--oneline"); !strings.Contains(log, hash[1][:7]+" "+message) {
		t.Errorf("git log --oneline does not hold %s %q:\n%s", hash[1][:7], message, log)
	}
	if who := strings.TrimSpace(git("log", "-1", "--format=%an <%ae>")); who != "MCP Agent <agent@example.com>" {
		t.Errorf("the commit's author is %q, want the identity of GIT_USERNAME and GIT_EMAIL", who)
	}

	// Wrong calls get the server's own words.
	if out, code := call("git_commit", map[string]any{"path": repo}); code != 1 || !strings.Contains(out, "Input validation error") || !strings.Contains(out, "at message") {
		t.Errorf("git_commit without a message: exit %d, want 1 and the missing argument:\n%s", code, out)
	}
	if out, code := call("git_status", map[string]any{"path": s.project}); code != 1 || !strings.Contains(out, "Path traversal detected") {
		t.Errorf("git_status outside GIT_BASE_DIR: exit %d, want 1 and the server's refusal:\n%s", code, out)
	}

	if b, err := os.ReadFile(filepath.Join(logs, "combined.log")); err != nil || !strings.Contains(string(b), "git_commit") {
		t.Errorf("the server's log in LOGS_DIR: %v %.200q", err, b)
	}
	if get, _ := s.host(t, "mcp", "get", "git"); !strings.Contains(get, "active (Landlock ABI") || !strings.Contains(get, dev+" (named in its config)") {
		t.Errorf("mcp get does not show the sandbox and the grant of GIT_BASE_DIR:\n%s", get)
	}
	// The repository's hooks and config, one level below the grant, were
	// read-only for the server (its commit needed neither): the host
	// started it through host-confine, and says so.
	get, _ := s.host(t, "mcp", "get", "git")
	readOnly := regexp.MustCompile(`files that run code later: enforced \(read-only in a mount namespace of its own: [^)]*` + regexp.QuoteMeta(filepath.Join(repo, ".git", "hooks")))
	if !readOnly.MatchString(get) || !strings.Contains(get, filepath.Join(repo, ".git", "config")) {
		t.Errorf("mcp get does not say the repository's hooks and config are kept read-only:\n%s", get)
	}
}
