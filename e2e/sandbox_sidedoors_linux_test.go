package e2e_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
