//go:build linux

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcp-host/mcp-host/internal/ptytest"
)

// expectRefused runs a probe under eff and wants the sandbox's own
// refusal: EACCES (Landlock) or EPERM (seccomp), not any error.
func expectRefused(t *testing.T, eff *Effective, cwd string, args ...string) {
	t.Helper()
	expectErrno(t, eff, cwd, []string{"EACCES", "EPERM"}, args...)
}

// expectErrno runs a probe under eff and wants it refused with one of
// errnos.
func expectErrno(t *testing.T, eff *Effective, cwd string, errnos []string, args ...string) {
	t.Helper()
	out, ok := probe(t, eff, cwd, args...)
	if !ok && slices.ContainsFunc(errnos, func(e string) bool { return strings.Contains(out, "[errno="+e+"]") }) {
		return
	}
	t.Errorf("%v: want the sandbox's refusal (%s), got %q", args, strings.Join(errnos, " or "), out)
}

// runUnconfined runs the probe with no sandbox and returns its output
// and whether it said ok: the refusals the tests assert are the
// sandbox's only if the same probe passes without it.
func runUnconfined(t *testing.T, attr *syscall.SysProcAttr, stdin *os.File, args ...string) (string, bool) {
	t.Helper()
	self, _ := os.Executable()
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "SANDBOX_PROBE=1")
	cmd.SysProcAttr = attr
	if stdin != nil {
		cmd.Stdin = stdin
	}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}

// unixListener listens on a pathname UNIX socket outside the server's
// places (an ssh-agent, the session bus, docker.sock stand in for it).
func unixListener(t *testing.T, dir string) string {
	return serve(t, "unix", filepath.Join(dir, "agent.sock"))
}

// A server reaches no UNIX socket it was not granted; a granted one it
// does.
func TestConfineUnixSockets(t *testing.T) {
	f := newFixture(t)
	sock := unixListener(t, f.home)
	if out, ok := runUnconfined(t, nil, nil, "unix", sock); !ok {
		t.Fatalf("unconfined probe cannot connect: %s", out)
	}
	for _, base := range []string{BaseDefault, BaseStrict} {
		eff := f.resolve(t, Policy{Base: base}, f.cwd)
		expectRefused(t, eff, f.cwd, "unix", sock)
		expectRefused(t, eff, f.cwd, "child", "unix", sock)
		if !strings.Contains(eff.Summary(), "UNIX sockets none") {
			t.Errorf("summary %q", eff.Summary())
		}
	}
	// Its own sockets work (the peer is in its session), a link to an
	// outside one does not, nor an abstract one outside its domain.
	eff := f.resolve(t, Policy{}, f.cwd)
	expect(t, eff, f.cwd, true, "unix-self", f.tmp)
	expectRefused(t, eff, f.cwd, "unix-link", f.cwd, sock)
	abstract := "mcp-host-sandbox-test-" + strconv.Itoa(os.Getpid())
	serve(t, "unix", "@"+abstract)
	expectRefused(t, eff, f.cwd, "unix-abstract", abstract)

	eff = f.resolve(t, Policy{UnixSockets: []string{sock}}, f.cwd)
	expect(t, eff, f.cwd, true, "unix", sock)
	if !strings.Contains(eff.Summary(), "UNIX sockets ~/agent.sock") {
		t.Errorf("summary %q", eff.Summary())
	}
}

// A server cannot open a terminal (the user's, by its /dev/pts path, or
// /dev/tty), and the seccomp filter refuses TIOCSTI even on a terminal
// that is its controlling one.
func TestConfineTerminal(t *testing.T) {
	f := newFixture(t)
	_, pts := ptytest.Open(t)
	if out, ok := runUnconfined(t, nil, nil, "tty", pts.Name()); !ok {
		t.Fatalf("unconfined probe cannot open %s: %s", pts.Name(), out)
	}
	for _, base := range []string{BaseDefault, BaseStrict} {
		eff := f.resolve(t, Policy{Base: base}, f.cwd)
		expectRefused(t, eff, f.cwd, "tty", pts.Name())
		expectRefused(t, eff, f.cwd, "tty", "/dev/ptmx")
		expectRefused(t, eff, f.cwd, "tiocsti", pts.Name())
	}
	// The filter itself: with the terminal as its controlling one, the
	// probe injects a key unfiltered, and is refused EPERM filtered.
	ctty := &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if out, ok := runUnconfined(t, ctty, pts, "tiocsti", "-"); !ok {
		t.Fatalf("TIOCSTI on its controlling terminal, unfiltered: %s", out)
	}
	for _, what := range []string{"tiocsti", "tiocsti-high"} {
		out, ok := runUnconfined(t, ctty, pts, "filter", what)
		if ok || !strings.Contains(out, "[errno=EPERM]") {
			t.Errorf("filter %s: %s", what, out)
		}
	}
}

// The filter's rules each refuse what they name, also with high bits set
// above a 32-bit argument, and leave socketpair alone.
func TestServerFilter(t *testing.T) {
	for _, what := range []string{"kill-tid", "kill-tid-high", "unix", "unix-high", "io_uring", "keyctl"} {
		out, ok := runUnconfined(t, nil, nil, "filter", what)
		if ok || !strings.Contains(out, "[errno=EPERM]") {
			t.Errorf("filter %s: want EPERM, got %q", what, out)
		}
	}
	if out, ok := runUnconfined(t, nil, nil, "filter", "socketpair"); !ok {
		t.Errorf("socketpair under the filter: %s", out)
	}
}

// With the network restricted ("none" or a host list), no protocol but
// TCP is created: MPTCP (which Landlock's TCP rules do not see), SCTP,
// UDP, raw; TCP itself stays Landlock's to judge.
func TestConfineNetworkProtocols(t *testing.T) {
	f := newFixture(t)
	ln := listen(t)
	_, port, _ := net.SplitHostPort(ln)
	if out, ok := runUnconfined(t, nil, nil, "mptcp", port); !ok {
		t.Fatalf("unconfined MPTCP connect to %s: %s", ln, out)
	}
	for _, n := range []*Network{{Mode: NetworkNone}, {Mode: NetworkAllow, Allow: []string{"example.com:443"}}} {
		eff := f.resolve(t, Policy{Network: n}, f.cwd)
		expectRefused(t, eff, f.cwd, "mptcp", port)
		expectRefused(t, eff, f.cwd, "sctp")
		expectRefused(t, eff, f.cwd, "udp")
		expectRefused(t, eff, f.cwd, "raw")
		expectRefused(t, eff, f.cwd, "connect", ln)
		expect(t, eff, f.cwd, true, "tcp6-socket")
	}
	// The default's open network leaves them be.
	eff := f.resolve(t, Policy{}, f.cwd)
	expect(t, eff, f.cwd, true, "mptcp", port)
	expect(t, eff, f.cwd, true, "udp")
}

// A grant that encloses a secret place does not let the server list the
// directories on the way (Landlock's listing right holds for a whole
// tree: ~/.ssh's names would show), while their other entries are read.
func TestConfineNoListingOnTheWay(t *testing.T) {
	f := newFixture(t)
	h := func(p string) string { return filepath.Join(f.home, filepath.FromSlash(p)) }
	if out, ok := runUnconfined(t, nil, nil, "list", h(".ssh")); !ok {
		t.Fatalf("unconfined list: %s", out)
	}
	eff := f.resolve(t, Policy{Base: BaseStrict, Read: []string{"~"}}, f.cwd)
	expectRefused(t, eff, f.cwd, "list", h(".ssh"))
	expectRefused(t, eff, f.cwd, "list", f.home)
	expectRefused(t, eff, f.cwd, "read", h(".ssh/id_rsa"))
	expect(t, eff, f.cwd, true, "read", h("notes.txt"))
	expect(t, eff, f.cwd, true, "list", h("project"))
}

// Reads are by grant: a credential file of a tool no list names, another
// AI tool's, a document in home: all refused; the cwd, the toolchain
// places and ~/.gitconfig are read.
func TestConfineReadsByGrant(t *testing.T) {
	f := newFixture(t)
	h := func(p string) string { return filepath.Join(f.home, filepath.FromSlash(p)) }
	for path, content := range map[string]string{
		".config/inventedtool/credentials.json": `{"token":"x"}`,
		".claude/.credentials.json":             `{"token":"x"}`,
		".codex/auth.json":                      `{"token":"x"}`,
		".gitconfig":                            "[user]\n",
		".nvm/versions/node/v22/bin/node-ish":   "x",
	} {
		if err := os.MkdirAll(filepath.Dir(h(path)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(h(path), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, base := range []string{BaseDefault, BaseStrict} {
		eff := f.resolve(t, Policy{Base: base}, f.cwd)
		for _, p := range []string{".config/inventedtool/credentials.json", ".claude/.credentials.json", ".codex/auth.json", "notes.txt", ".config/other/settings.json"} {
			expectRefused(t, eff, f.cwd, "read", h(p))
		}
		expect(t, eff, f.cwd, true, "read", h(".gitconfig"))
		expect(t, eff, f.cwd, true, "read", h(".nvm/versions/node/v22/bin/node-ish"))
		expectRefused(t, eff, f.cwd, "write", h(".gitconfig"))
		expectRefused(t, eff, f.cwd, "write", h(".nvm/versions/node/v22/bin/node-ish"))
	}
}
