//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fixture is a fake home with secrets, a server cwd and a private temp dir.
type fixture struct {
	home, cwd, tmp, token string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	requireLandlock(t)
	root := t.TempDir()
	f := fixture{home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp")}
	f.cwd = filepath.Join(f.home, "project")
	f.token = filepath.Join(f.home, ".config", "mcp-host", "mcp-auth.json")
	for path, content := range map[string]string{
		".ssh/id_rsa":                    "PRIVATE KEY",
		".aws/credentials":               "aws_secret_access_key=x",
		".config/mcp-host/mcp-auth.json": "{\"token\":\"secret\"}",
		".config/other/settings.json":    "{}",
		"notes.txt":                      "hello",
		".bashrc":                        "# rc",
		"project/README":                 "readme",
	} {
		p := filepath.Join(f.home, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(f.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	return f
}

func requireLandlock(t *testing.T) {
	t.Helper()
	if abi, reason := landlockABI(); abi < abiScope {
		msg := "this kernel's Landlock cannot run the sandbox tests: " + reason
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

func (f fixture) resolve(t *testing.T, p Policy, cwd string) *Effective {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	eff, err := Resolve(p, Context{Home: f.home, Cwd: cwd, TempDir: f.tmp, Command: self,
		HostPaths: []string{filepath.Dir(f.token)}})
	if err != nil {
		t.Fatal(err)
	}
	return eff
}

// probe runs the test binary as a server under eff, started as the host
// starts one.
func probe(t *testing.T, eff *Effective, cwd string, args ...string) (string, bool) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "SANDBOX_PROBE=1")
	st, start, err := Wrap(cmd, eff)
	if err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	if st.State != StateActive {
		t.Fatalf("status = %v, want active", st)
	}
	out, err := run(cmd, start)
	text := strings.TrimSpace(out)
	if err != nil && !strings.HasPrefix(text, "denied") {
		if _, ok := err.(*exec.ExitError); !ok || !strings.Contains(text, "denied") {
			t.Fatalf("probe %v: %v: %s", args, err, text)
		}
	}
	return text, err == nil && text == "ok"
}

// run starts cmd with start (from Wrap) and returns its combined output.
func run(cmd *exec.Cmd, start func() error) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := start(); err != nil {
		return out.String(), err
	}
	err := cmd.Wait()
	return out.String(), err
}

func expect(t *testing.T, eff *Effective, cwd string, allowed bool, args ...string) {
	t.Helper()
	out, ok := probe(t, eff, cwd, args...)
	if ok != allowed {
		t.Errorf("%v: allowed=%v, want %v (%s)", args, ok, allowed, out)
	}
}

func TestConfineDefaultPolicy(t *testing.T) {
	f := newFixture(t)
	eff := f.resolve(t, Policy{}, f.cwd)
	h := func(p string) string { return filepath.Join(f.home, filepath.FromSlash(p)) }

	expect(t, eff, f.cwd, false, "read", h(".ssh/id_rsa"))
	expect(t, eff, f.cwd, false, "read", h(".aws/credentials"))
	expect(t, eff, f.cwd, false, "read", f.token)
	// Reads are by grant: home's other files are no grant's.
	expectRefused(t, eff, f.cwd, "read", h("notes.txt"))
	expectRefused(t, eff, f.cwd, "read", h(".config/other/settings.json"))
	expect(t, eff, f.cwd, true, "read", h("project/README"))
	expect(t, eff, f.cwd, false, "write", h("notes.txt"))
	expect(t, eff, f.cwd, false, "write", h(".bashrc"))
	expect(t, eff, f.cwd, true, "write", h("project/out.txt"))
	expect(t, eff, f.cwd, true, "write", filepath.Join(f.tmp, "scratch"))
	expect(t, eff, f.cwd, true, "write", "/dev/null")
	// A child of the server is held by the same rules.
	expect(t, eff, f.cwd, false, "child", "read", h(".ssh/id_rsa"))
	expect(t, eff, f.cwd, false, "child", "write", h("notes.txt"))
	expect(t, eff, f.cwd, true, "child", "write", h("project/child.txt"))
	// The server cannot signal the host (its parent, outside the domain).
	expect(t, eff, f.cwd, false, "kill", "0")
	// Nor read its environment (where the host keeps API keys), even as root.
	expect(t, eff, f.cwd, false, "parent-environ")
	// Network is open under the default policy.
	ln := listen(t)
	expect(t, eff, f.cwd, true, "connect", ln)
}

// A server whose cwd is the home directory still cannot write shell
// start-up files or read secrets through it.
func TestConfineCwdIsHome(t *testing.T) {
	f := newFixture(t)
	eff := f.resolve(t, Policy{}, f.home)
	h := func(p string) string { return filepath.Join(f.home, filepath.FromSlash(p)) }
	expect(t, eff, f.home, false, "write", h(".bashrc"))
	expect(t, eff, f.home, false, "read", h(".ssh/id_rsa"))
	expect(t, eff, f.home, false, "write", h(".ssh/authorized_keys"))
	expect(t, eff, f.home, true, "write", h("notes.txt"))
	expect(t, eff, f.home, true, "write", h("project/x"))
}

func TestConfineStrictPolicy(t *testing.T) {
	f := newFixture(t)
	eff := f.resolve(t, Policy{Base: BaseStrict, Read: []string{"~/project"}}, f.cwd)
	h := func(p string) string { return filepath.Join(f.home, filepath.FromSlash(p)) }
	ln := listen(t)
	expect(t, eff, f.cwd, false, "connect", ln)
	expect(t, eff, f.cwd, false, "udp")
	expect(t, eff, f.cwd, false, "read", h("notes.txt"))
	expect(t, eff, f.cwd, false, "read", h(".ssh/id_rsa"))
	expect(t, eff, f.cwd, true, "read", h("project/README"))
	expect(t, eff, f.cwd, true, "read", "/etc/hostname")
	expect(t, eff, f.cwd, false, "write", h("project/out.txt"))
	expect(t, eff, f.cwd, true, "write", filepath.Join(f.tmp, "scratch"))
	expect(t, eff, f.cwd, false, "child", "connect", ln)
	expect(t, eff, f.cwd, false, "kill", "0")
}

// A granted port is reachable; others are not.
func TestConfineNetworkAllowlist(t *testing.T) {
	f := newFixture(t)
	open, closed := listen(t), listen(t)
	_, port, _ := net.SplitHostPort(open)
	eff := f.resolve(t, Policy{Network: &Network{Mode: NetworkAllow, Allow: []string{"127.0.0.1:" + port}}}, f.cwd)
	expect(t, eff, f.cwd, true, "connect", open)
	expect(t, eff, f.cwd, false, "connect", closed)
}

// With the host's proxy, only the proxy's port is reachable: not even
// the listed pair directly (the server must go through the proxy, which
// checks the host).
func TestConfineNetworkProxyPortOnly(t *testing.T) {
	f := newFixture(t)
	proxy, listed := listen(t), listen(t)
	_, port, _ := net.SplitHostPort(listed)
	_, pport, _ := net.SplitHostPort(proxy)
	eff := f.resolve(t, Policy{Network: &Network{Mode: NetworkAllow, Allow: []string{"127.0.0.1:" + port}}}, f.cwd)
	n, err := strconv.ParseUint(pport, 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	eff.ProxyPort = uint16(n)
	expect(t, eff, f.cwd, true, "connect", proxy)
	expect(t, eff, f.cwd, false, "connect", listed)
	// Another address on the proxy's port: Landlock's rule is by port
	// alone; the supervisor holds the address too.
	expectRefused(t, eff, f.cwd, "connect", serve(t, "tcp4", "127.0.0.2:"+pport))
}

// Without the sandbox, the probe does all of it: the refusals above are
// the sandbox's.
func TestProbeUnconfined(t *testing.T) {
	f := newFixture(t)
	eff := f.resolve(t, Policy{Off: true}, f.cwd)
	self, _ := os.Executable()
	probes := [][]string{
		{"read", filepath.Join(f.home, ".ssh/id_rsa")},
		{"write", filepath.Join(f.home, "notes.txt")},
		{"connect", listen(t)},
		{"udp"},
		{"kill", "0"},
		{"tkill-self"},
		{"tgkill-host"},
	}
	// Once a sandboxed start has made this process not dumpable, only a
	// root probe (CAP_SYS_PTRACE) reads its environment, sandbox or not.
	if d, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); d == 1 || os.Geteuid() == 0 {
		probes = append(probes, []string{"parent-environ"})
	}
	for _, args := range probes {
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), "SANDBOX_PROBE=1")
		st, start, err := Wrap(cmd, eff)
		if err != nil || st.State != StateOff {
			t.Fatalf("Wrap: %v %v", st, err)
		}
		if out, err := run(cmd, start); err != nil {
			t.Errorf("%v unconfined: %v %s", args, err, out)
		}
	}
}

func TestConfineDeniedStartNamesThePath(t *testing.T) {
	f := newFixture(t)
	eff := f.resolve(t, Policy{Base: BaseStrict}, f.cwd)
	// A program outside what strict reads.
	prog := filepath.Join(f.home, "bin", "server")
	if err := os.MkdirAll(filepath.Dir(prog), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho hi\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog)
	_, start, err := Wrap(cmd, eff)
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(cmd, start)
	if err == nil {
		t.Fatalf("started: %s", out)
	}
	if !strings.Contains(err.Error(), "sandbox denied starting "+prog) || !strings.Contains(err.Error(), `"read"`) {
		t.Errorf("error = %q, want the path and the grant", err)
	}
}

// The thread that starts a server shares its domain until it ends, so the
// seccomp filter refuses the signals that could reach it (Landlock alone
// lets a server signal its own thread: tkill-self shows the filter is
// there), and the host is not dumpable, so no server reads its memory.
func TestConfineHostThreadsOutOfReach(t *testing.T) {
	f := newFixture(t)
	for _, eff := range []*Effective{f.resolve(t, Policy{}, f.cwd), f.resolve(t, Policy{Base: BaseStrict}, f.cwd)} {
		expect(t, eff, f.cwd, false, "tkill-self")
		expect(t, eff, f.cwd, false, "tgkill-host")
		expect(t, eff, f.cwd, false, "pidfd-thread")
		expect(t, eff, f.cwd, false, "host-mem")
		expect(t, eff, f.cwd, false, "child", "tgkill-host", strconv.Itoa(os.Getpid()))
	}
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
		t.Errorf("the host is dumpable (%d, %v) after a sandboxed start", d, err)
	}
}

// The rules stay on the threads that started servers, which end: after
// many concurrent starts no thread of the host (the main thread above
// all, which Go never ends) carries no_new_privs or a seccomp filter, and
// the host still reads what the servers may not.
func TestConfineLeavesTheHostUnconfined(t *testing.T) {
	f := newFixture(t)
	eff := f.resolve(t, Policy{Base: BaseStrict}, f.cwd)
	secret := filepath.Join(f.home, ".ssh", "id_rsa")
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			expect(t, eff, f.cwd, false, "read", secret)
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tainted := taintedThreads(t)
		if len(tainted) == 0 {
			break
		}
		if slices.Contains(tainted, os.Getpid()) || time.Now().After(deadline) {
			t.Fatalf("threads %v of the host (pid %d) are still confined", tainted, os.Getpid())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := os.ReadFile(secret); err != nil {
				t.Errorf("the host cannot read %s any more: %v", secret, err)
			}
		}()
	}
	wg.Wait()
}

// taintedThreads lists the threads of this process with no_new_privs set
// or a seccomp filter (/proc/self/task/*/status).
func taintedThreads(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var tids []int
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", e.Name(), "status"))
		if err != nil {
			continue // ended
		}
		s := string(b)
		if strings.Contains(s, "NoNewPrivs:\t1") || !strings.Contains(s, "Seccomp:\t0") {
			tid, _ := strconv.Atoi(e.Name())
			tids = append(tids, tid)
		}
	}
	return tids
}

// listen is a TCP listener on 127.0.0.1 that accepts and closes.
func listen(t *testing.T) string { return serve(t, "tcp4", "127.0.0.1:0") }

// serve listens on network and address, accepting and closing every
// connection until the test ends, and returns the address.
func serve(t *testing.T, network, address string) string {
	t.Helper()
	ln, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// On a kernel without Landlock a server starts unconfined and its status
// says why, unless its policy requires the sandbox: then Wrap refuses it.
func TestWrapRequiredWithoutLandlock(t *testing.T) {
	f := newFixture(t)
	defer func(k func() (int, string)) { landlockABI = k }(landlockABI)
	landlockABI = func() (int, string) { return abiNoKernel, "kernel without Landlock (test)" }
	for _, required := range []bool{false, true} {
		eff := f.resolve(t, Policy{Required: required}, f.cwd)
		cmd := exec.Command("/bin/true")
		st, start, err := Wrap(cmd, eff)
		if st.State != StateUnavailable || st.Detail != "kernel without Landlock (test)" {
			t.Errorf("required=%v: status %v", required, st)
		}
		if required {
			if !errors.Is(err, ErrRequired) || start != nil {
				t.Errorf("required: Wrap = %v, start set %v; want ErrRequired and no start", err, start != nil)
			}
			continue
		}
		if err != nil {
			t.Fatalf("not required: %v", err)
		}
		if out, err := run(cmd, start); err != nil {
			t.Errorf("not required: the server did not start unconfined: %v %s", err, out)
		}
	}
}
