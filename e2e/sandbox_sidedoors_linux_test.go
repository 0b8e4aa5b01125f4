package e2e_test

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/internal/ptytest"
)

// startSSHAgent runs a real ssh-agent on a socket of its own.
func startSSHAgent(t *testing.T, dir string) string {
	t.Helper()
	bin, err := exec.LookPath("ssh-agent")
	testenv.Require(t, "ssh-agent (Debian openssh-client)", err)
	sock := filepath.Join(dir, "agent.sock")
	cmd := exec.Command(bin, "-D", "-a", sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitForPath(t, sock)
	return sock
}

// startSecretService runs a session bus (dbus-daemon) with gnome-keyring's
// Secret Service on it, holding one secret; it returns the bus address
// and its socket.
func startSecretService(t *testing.T, dir string) (addr, sock string) {
	t.Helper()
	for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool"} {
		_, err := exec.LookPath(tool)
		testenv.Require(t, tool+" (Debian dbus-daemon, gnome-keyring, libsecret-tools)", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock = filepath.Join(dir, "bus")
	addr = "unix:path=" + sock
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--address="+addr)
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bus.Process.Kill(); _ = bus.Wait() })
	waitForPath(t, sock)
	env := append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS="+addr, "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	keyring := exec.Command("gnome-keyring-daemon", "--unlock", "--components=secrets")
	keyring.Env, keyring.Stdin = env, strings.NewReader("throwaway")
	if out, err := keyring.CombinedOutput(); err != nil {
		t.Fatalf("gnome-keyring-daemon: %v\n%s", err, out)
	}
	store := exec.Command("secret-tool", "store", "--label=e2e", "service", "sidedoor", "username", "probe")
	store.Env, store.Stdin = env, strings.NewReader("the-secret-service-secret")
	if out, err := store.CombinedOutput(); err != nil {
		t.Fatalf("secret-tool store: %v\n%s", err, out)
	}
	return addr, sock
}

func waitForPath(t *testing.T, p string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear", p)
}

// configureWith writes the global config: the probe with the sandbox and
// the host's variables it passes through.
func (s *sandboxHome) configureWith(t *testing.T, sandbox string, envVars ...string) {
	t.Helper()
	vars := `[]`
	if len(envVars) > 0 {
		vars = `["` + strings.Join(envVars, `","`) + `"]`
	}
	cfg := `{"version":1,"mcp":{"servers":{"probe":{"command":` + quote(s.probe) + `,"env_vars":` + vars + `,"sandbox":` + sandbox + `}}}}`
	if err := os.WriteFile(s.global, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// expectErrno wants the attack refused with the sandbox's own errno.
func (s *sandboxHome) expectErrno(t *testing.T, errno, action, target string) {
	t.Helper()
	out := s.attack(t, action, target)
	if !strings.Contains(out, "refused:") || !strings.Contains(out, "[errno="+errno+"]") {
		t.Errorf("%s %s: want refused with %s:\n%s", action, target, errno, out)
	}
}

// A server added plainly (default policy) or strictly reaches none of the
// doors a path rule does not see: UNIX sockets (a real ssh-agent, the
// session bus with a real Secret Service, a docker.sock), the user's
// terminal, the credential files of tools no list names, the git hooks
// of the directory the host runs in, another server's private cache and
// the shared npx store. Each is first shown open with "sandbox": false, so
// that every refusal is the sandbox's.
func TestSandboxSideDoors(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	s := newSandboxHome(t)
	sockets := t.TempDir()
	agent := startSSHAgent(t, sockets)
	docker := acceptAndClose(t, "unix", filepath.Join(sockets, "docker.sock"))
	bus, busSock := startSecretService(t, filepath.Join(sockets, "session"))
	s.env = append(s.env, "DBUS_SESSION_BUS_ADDRESS="+bus) // the host's, passed through by env_vars
	_, pts := ptytest.Open(t)                              // the user's terminal, as a host run in one has it
	tty := pts.Name()
	h := func(p string) string { return filepath.Join(s.home, filepath.FromSlash(p)) }
	for path, content := range map[string]string{
		".config/inventedtool/token.json":            `{"token":"invented"}`,
		".claude/.credentials.json":                  `{"claudeAiOauth":"not-real"}`,
		".npm/_npx/abc/package.json":                 `{}`,
		".cache/mcp-host/servers/other/npm/index.js": "// another server's cache",
	} {
		if err := os.MkdirAll(filepath.Dir(h(path)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(h(path), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", s.project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	hook := filepath.Join(s.project, ".git", "hooks", "pre-commit")
	secret := "secret-tool lookup service sidedoor username probe"

	s.configureWith(t, "false", "DBUS_SESSION_BUS_ADDRESS")
	for _, a := range [][2]string{{"unix", agent}, {"unix", docker}, {"unix", busSock}, {"tty", tty},
		{"read", h(".config/inventedtool/token.json")}, {"read", h(".claude/.credentials.json")}} {
		if out := s.attack(t, a[0], a[1]); !strings.Contains(out, "ok:") {
			t.Fatalf("unconfined %s %s is not open, so its refusal would prove nothing:\n%s", a[0], a[1], out)
		}
	}
	if out := s.attack(t, "exec", secret); !strings.Contains(out, "the-secret-service-secret") {
		t.Fatalf("unconfined, the Secret Service does not answer:\n%s", out)
	}

	for _, policy := range []string{`"default"`, `"strict"`} {
		t.Run(strings.Trim(policy, `"`), func(t *testing.T) {
			s.configureWith(t, policy, "DBUS_SESSION_BUS_ADDRESS")
			s.expectErrno(t, "EPERM", "unix", agent)
			s.expectErrno(t, "EPERM", "unix", docker)
			s.expectErrno(t, "EPERM", "unix", busSock)
			s.expectErrno(t, "EPERM", "child", "unix "+busSock)
			if out := s.attack(t, "exec", secret); strings.Contains(out, "the-secret-service-secret") || !strings.Contains(out, "refused") {
				t.Errorf("secret-tool through the session bus:\n%s", out)
			}
			s.expectErrno(t, "EACCES", "tty", tty)
			s.expectErrno(t, "EACCES", "tty", "/dev/tty")
			s.expectErrno(t, "EACCES", "read", h(".config/inventedtool/token.json"))
			s.expectErrno(t, "EACCES", "read", h(".claude/.credentials.json"))
			s.expectErrno(t, "EACCES", "write", hook)
			s.expectErrno(t, "EACCES", "write", filepath.Join(s.project, ".git", "config"))
			s.expectErrno(t, "EACCES", "write", h(".npm/_npx/abc/index.js"))
			s.expectErrno(t, "EACCES", "write", h(".cache/mcp-host/servers/other/npm/index.js"))
			s.expectErrno(t, "EACCES", "read", h(".cache/mcp-host/servers/other/npm/index.js"))
		})
	}
	if _, err := os.Stat(hook); err == nil {
		t.Error("the pre-commit hook was written")
	}
}

// "network": "none" refuses MPTCP (which Landlock's TCP rules do not see)
// and UDP; a host list refuses UDP and a direct connect. The default's open
// network shows the same attempts go through without the rule.
func TestSandboxNetworkProtocols(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	s := newSandboxHome(t)
	udp := loopbackUDP(t)
	s.configure(t, `"default"`)
	if out := s.attack(t, "mptcp", s.listener); !strings.Contains(out, "ok:") {
		t.Fatalf("MPTCP under the default (network all):\n%s", out)
	}
	for _, policy := range []string{`{"network":"none"}`, `{"network":["example.com:443"]}`} {
		s.configure(t, policy)
		s.expectErrno(t, "EPERM", "mptcp", s.listener)
		s.expectErrno(t, "EPERM", "udp", udp)
		s.expectErrno(t, "EACCES", "connect", s.listener)
		s.expectErrno(t, "EPERM", "child", "mptcp "+s.listener)
	}
}

// loopbackUDP reads datagrams on 127.0.0.1 and returns its address.
func loopbackUDP(t *testing.T) string {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.LocalAddr().String()
}

// The i386 system call ABI (int $0x80, served by x86-64 kernels with IA32
// emulation) is no side door: a seccomp rule judges one ABI's numbers, so
// a call through the other would pass every rule (an MPTCP connection
// under "none", a connect the supervisor never sees). Shown answering
// unconfined first.
func TestSandboxForeignSyscallABI(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("SKIPPED: the i386 ABI is x86-64's")
	}
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	s := newSandboxHome(t)
	agent := startSSHAgent(t, t.TempDir())
	s.configure(t, "false")
	out := s.attack(t, "i386", "getpid")
	if strings.Contains(out, "[errno=ENOSYS]") {
		t.Skip("SKIPPED: this kernel serves no i386 system calls (IA32 emulation off), so there is no such door")
	}
	if !strings.Contains(out, "ok:") {
		t.Fatalf("unconfined i386 getpid:\n%s", out)
	}
	if out := s.attack(t, "i386", "unix "+agent); !strings.Contains(out, "ok:") {
		t.Fatalf("unconfined i386 connect to the agent:\n%s", out)
	}
	s.configure(t, `"default"`)
	s.expectErrno(t, "EPERM", "i386", "getpid")
	s.expectErrno(t, "EPERM", "i386", "unix "+agent)
	s.configure(t, `{"network":"none"}`)
	s.expectErrno(t, "EPERM", "i386", "mptcp "+s.listener)
}

// Files that run code later (docs/SANDBOX.md): a repository the user
// names as a server's argument is granted to it, but its hooks, its
// config, its editor tasks and its .envrc stay read-only (EROFS) and its
// .git cannot be renamed away to be remade (EBUSY), while the rest of the
// repository, .git/objects included, is written as before. The server is
// added plainly (host mcp add, the default sandbox), so the host starts it
// through host-confine; each attempt is first shown to succeed with
// "sandbox": false, so that every refusal is the sandbox's.
func TestSandboxCodeFiles(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	gitPath, err := exec.LookPath("git")
	testenv.Require(t, "git on PATH (the test makes a repository with git init)", err)
	s := newSandboxHome(t)
	repo := filepath.Join(t.TempDir(), "repo")
	cmd := exec.Command(gitPath, "init", "-q", repo)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	in := func(p string) string { return filepath.Join(repo, filepath.FromSlash(p)) }
	hook, gitConfig, tasks, envrc := in(".git/hooks/pre-commit"), in(".git/config"), in(".vscode/tasks.json"), in(".envrc")
	if err := os.MkdirAll(filepath.Dir(tasks), 0o700); err != nil {
		t.Fatal(err)
	}
	originals := map[string]string{
		tasks: `{"version":"2.0.0","tasks":[{"label":"build","type":"shell","command":"make"}]}`,
		envrc: "export APP_ENV=dev\n",
	}
	if originals[gitConfig], err = readString(gitConfig); err != nil {
		t.Fatal(err)
	}
	restore := func() {
		t.Helper()
		if _, err := os.Stat(in(".git.away")); err == nil {
			if err := os.Rename(in(".git.away"), in(".git")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Remove(hook); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for p, content := range originals {
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	restore()
	// What the server tries, and what the sandbox answers each.
	doors := []struct{ action, target, errno string }{
		{"write", hook, "EROFS"},
		{"append", gitConfig, "EROFS"},
		{"write", tasks, "EROFS"},
		{"write", envrc, "EROFS"},
		{"rename", in(".git"), "EBUSY"},
	}
	work := [][2]string{{"write", in("notes.txt")}, {"write", in(".git/objects/probe-object")}}

	args, _ := json.Marshal([]string{repo})
	cfg := `{"version":1,"mcp":{"servers":{"probe":{"command":` + quote(s.probe) + `,"args":` + string(args) + `,"sandbox":false}}}}`
	if err := os.WriteFile(s.global, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range doors {
		if out := s.attack(t, d.action, d.target); !strings.Contains(out, "ok:") {
			t.Fatalf("unconfined %s %s is not open, so its refusal would prove nothing:\n%s", d.action, d.target, out)
		}
		restore() // the next door, and the confined run, meet the repository as the user left it
	}

	// As a user adds it: the repository is the user's word, so the
	// default grants it.
	if err := os.Remove(s.global); err != nil {
		t.Fatal(err)
	}
	out, code := s.host(t, "mcp", "add", "probe", "--", s.probe, repo)
	if code != 0 || !strings.Contains(out, repo+" (named in its config)") {
		t.Fatalf("mcp add: exit %d, want the grant of %s:\n%s", code, repo, out)
	}
	get, _ := s.host(t, "mcp", "get", "probe")
	if line := regexp.MustCompile(`files that run code later: not protected[^\n]*no mount namespace[^\n]*`).FindString(get); line != "" {
		// User namespaces refused (a sysctl, Ubuntu 24.04's AppArmor
		// restriction): the host says so, and there is nothing to test.
		testenv.Require(t, "a user and mount namespace for host-confine", errors.New(line))
	}
	readOnly := regexp.MustCompile(`files that run code later: enforced \(read-only in a mount namespace of its own: [^)]*` + regexp.QuoteMeta(in(".git/hooks")))
	if !readOnly.MatchString(get) {
		t.Errorf("mcp get does not say the repository's hooks are kept read-only:\n%s", get)
	}
	for _, d := range doors {
		s.expectErrno(t, d.errno, d.action, d.target)
	}
	for _, w := range work {
		if out := s.attack(t, w[0], w[1]); !strings.Contains(out, "ok:") {
			t.Errorf("%s %s in the granted repository: want it written:\n%s", w[0], w[1], out)
		}
	}
	if _, err := os.Stat(hook); err == nil {
		t.Error("the pre-commit hook was written")
	}
	for p, want := range originals {
		if got, err := readString(p); err != nil || got != want {
			t.Errorf("%s changed: %q (%v), want %q", p, got, err, want)
		}
	}
	if _, err := os.Stat(in(".git.away")); err == nil {
		t.Error(".git was renamed away")
	}
}

// readString is a file's content.
func readString(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}
