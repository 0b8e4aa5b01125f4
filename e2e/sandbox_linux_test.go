package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"golang.org/x/sys/unix"
)

// sandboxHome is a user's home with the secrets a hostile local server
// goes for, and the host's own state in it.
type sandboxHome struct {
	home, project, global, probe, listener string
	// bin is the host binary; "" is buildHost's.
	bin string
	// env are variables the host gets beyond the test's own.
	env []string
}

func newSandboxHome(t *testing.T) *sandboxHome {
	t.Helper()
	if v, _, err := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, 1); err != 0 || v < 6 {
		msg := "the kernel lacks Landlock ABI 6 (filesystem, TCP, scoping) the sandbox tests need"
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root := t.TempDir()
	s := &sandboxHome{home: filepath.Join(root, "home")}
	s.project = filepath.Join(s.home, "project")
	s.global = filepath.Join(s.home, ".config", "mcp-host", "config.json")
	for path, content := range map[string]string{
		".ssh/id_rsa":                     "-----BEGIN OPENSSH PRIVATE KEY-----",
		".aws/credentials":                "aws_secret_access_key = AKIA-not-real",
		".config/mcp-host/mcp-auth.json":  `{"tokens":"not-real"}`,
		".config/mcp-host/approvals.json": `{"version":1,"projects":{}}`,
		".bashrc":                         "# the user's rc\n",
		".config/autostart/.keep":         "",
		"notes.txt":                       "ordinary notes",
		"project/README":                  "the project",
	} {
		p := filepath.Join(s.home, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s.probe = filepath.Join(t.TempDir(), "sandboxprobe")
	cmd := exec.Command("go", "build", "-o", s.probe, "./e2e/internal/sandboxprobe")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/internal/sandboxprobe: %v\n%s", err, out)
	}
	s.listener = loopbackListener(t)
	return s
}

// configure writes the global config: the probe with the given sandbox.
func (s *sandboxHome) configure(t *testing.T, sandbox string) {
	t.Helper()
	cfg := `{"version":1,"mcp":{"servers":{"probe":{"command":` + quote(s.probe) + `,"sandbox":` + sandbox + `}}}}`
	if err := os.WriteFile(s.global, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// host runs the host binary as this user, from the project directory.
func (s *sandboxHome) host(t *testing.T, args ...string) (string, int) {
	t.Helper()
	bin := s.bin
	if bin == "" {
		bin = buildHost(t)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.project
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "MCP_HOST_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HOME="+s.home, "MCP_HOST_CONFIG="+s.global, "MCP_HOST_TOKEN_STORE=file",
		"OPENAI_API_KEY=sk-not-real-but-secret")
	cmd.Env = append(cmd.Env, s.env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

// attack has the probe try one thing through a real tool call and
// returns its answer.
func (s *sandboxHome) attack(t *testing.T, action, target string) string {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"action": action, "target": target})
	out, code := s.host(t, "mcp", "call", "probe", "attack", "--args", string(args), "--yes")
	if code != 0 {
		t.Fatalf("attack %s %s: host exit %d:\n%s", action, target, code, out)
	}
	return out
}

func (s *sandboxHome) expect(t *testing.T, refused bool, action, target string) {
	t.Helper()
	out := s.attack(t, action, target)
	if got := strings.Contains(out, "refused:"); got != refused || !got && !strings.Contains(out, "ok:") {
		t.Errorf("%s %s: refused=%v, want %v:\n%s", action, target, got, refused, out)
	}
}

// The refusals a hostile server meets under a policy, each on its own;
// then that its honest work still passes.
func (s *sandboxHome) assertConfined(t *testing.T) {
	h := func(p string) string { return filepath.Join(s.home, filepath.FromSlash(p)) }
	s.expect(t, true, "read", h(".ssh/id_rsa"))
	s.expect(t, true, "read", h(".aws/credentials"))
	s.expect(t, true, "read", h(".config/mcp-host/mcp-auth.json"))
	s.expect(t, true, "read", h(".config/mcp-host/approvals.json"))
	s.expect(t, true, "read", s.global)
	s.expect(t, true, "write", h(".bashrc"))
	s.expect(t, true, "write", h(".config/autostart/x.desktop"))
	s.expect(t, true, "child", "read "+h(".ssh/id_rsa"))
	s.expect(t, true, "child", "write "+h(".bashrc"))
	s.expect(t, true, "child", "write "+h(".config/autostart/y.desktop"))
	s.expect(t, true, "env", "OPENAI_API_KEY")
	s.expect(t, true, "kill-parent", "")
	s.expect(t, true, "kill-host-threads", "")
	s.expect(t, true, "parent-environ", "")
	s.expect(t, true, "host-mem", "")
	if b, _ := os.ReadFile(h(".bashrc")); string(b) != "# the user's rc\n" {
		t.Errorf(".bashrc changed: %q", b)
	}
	for _, f := range []string{".config/autostart/x.desktop", ".config/autostart/y.desktop"} {
		if _, err := os.Stat(h(f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	out, code := s.host(t, "mcp", "call", "probe", "work", "--args", `{"text":"honest work"}`, "--yes")
	if code != 0 || !strings.Contains(out, "ok: honest work") {
		t.Errorf("work in its cwd: exit %d:\n%s", code, out)
	}
	// Its cwd is its private work directory, not the host's.
	if b, _ := os.ReadFile(filepath.Join(s.home, ".cache", "mcp-host", "servers", "probe", "work", "probe-work.txt")); string(b) != "honest work" {
		t.Errorf("the work file holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(s.project, "probe-work.txt")); err == nil {
		t.Error("the server wrote into the host's cwd")
	}
}

func TestSandboxDefaultPolicy(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	s := newSandboxHome(t)
	s.configure(t, `"default"`)
	s.assertConfined(t)
	s.expect(t, true, "read", filepath.Join(s.home, "notes.txt")) // reads are by grant
	s.expect(t, false, "connect", s.listener)                     // the default leaves the network open
	out, code := s.host(t, "mcp", "get", "probe")
	if code != 0 || !strings.Contains(out, "sandbox:") || !strings.Contains(out, "active (Landlock ABI") ||
		!strings.Contains(out, "reads system, toolchains, own files") || !strings.Contains(out, "writes cwd ~/.cache/mcp-host/servers/probe/work") {
		t.Errorf("mcp get: exit %d:\n%s", code, out)
	}
}

func TestSandboxStrictPolicy(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	s := newSandboxHome(t)
	s.configure(t, `{"base":"strict","filesystem":{"write":[`+quote(s.project)+`]}}`)
	s.assertConfined(t)
	s.expect(t, true, "connect", s.listener)
	s.expect(t, true, "child", "connect "+s.listener)
	s.expect(t, true, "read", filepath.Join(s.home, "notes.txt"))
	out, _ := s.host(t, "mcp", "get", "probe")
	if !strings.Contains(out, "strict: reads system, toolchains, own files") || !strings.Contains(out, "network none") {
		t.Errorf("mcp get:\n%s", out)
	}
}

// A server that fails because the sandbox denied it a file says so: the
// error names the path and the grant.
func TestSandboxDeniedHint(t *testing.T) {
	s := newSandboxHome(t)
	// A server that needs a file in home, which strict does not read.
	prog := filepath.Join(s.home, "bin", "server")
	notes := filepath.Join(s.home, "notes.txt")
	if err := os.MkdirAll(filepath.Dir(prog), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ncat "+notes+" >/dev/null || exit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"version":1,"mcp":{"servers":{"probe":{"command":` + quote(prog) + `,"sandbox":"strict"}}}}`
	if err := os.WriteFile(s.global, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := s.host(t, "mcp", "test", "probe")
	if code == 0 || !strings.Contains(out, "the sandbox denied "+notes) || !strings.Contains(out, `"sandbox": {"filesystem": {"read": [`+quote(notes)) {
		t.Errorf("mcp test: exit %d, want the denied path and the grant:\n%s", code, out)
	}
}

// The npm filesystem server, started by the host binary, works on the
// directory granted to it under the default policy and under strict; a
// directory not granted stays out of its reach even where the server's own
// rules would allow it.
func TestSandboxFilesystemServer(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	argv := testenv.NodeBin(t, "mcp-server-filesystem")
	s := newSandboxHome(t)
	files := filepath.Join(t.TempDir(), "files")
	other := filepath.Join(s.home, "other")
	for _, d := range []string{files, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(files, "notes.txt"), []byte("remember the milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(append(argv[1:], files, other))
	for _, tc := range []struct {
		name, sandbox string
		other         bool // writes the directory its arguments name but no grant does
	}{
		// As its README configures it: the directories it serves are its
		// arguments, which the default grants as the user's own words.
		{"default", `"default"`, true},
		{"strict", `{"base":"strict","filesystem":{"write":[` + quote(files) + `]}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := `{"version":1,"mcp":{"servers":{"files":{"command":` + quote(argv[0]) + `,"args":` + string(args) + `,"sandbox":` + tc.sandbox + `}}}}`
			if err := os.WriteFile(s.global, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			call := func(tool string, in map[string]string) (string, int) {
				b, _ := json.Marshal(in)
				return s.host(t, "mcp", "call", "files", tool, "--args", string(b), "--yes")
			}
			if out, code := call("read_text_file", map[string]string{"path": filepath.Join(files, "notes.txt")}); code != 0 || !strings.Contains(out, "remember the milk") {
				t.Errorf("read in the granted directory: exit %d:\n%s", code, out)
			}
			target := filepath.Join(files, tc.name+".txt")
			if out, code := call("write_file", map[string]string{"path": target, "content": "written " + tc.name}); code != 0 {
				t.Errorf("write in the granted directory: exit %d:\n%s", code, out)
			}
			if b, _ := os.ReadFile(target); string(b) != "written "+tc.name {
				t.Errorf("%s holds %q", target, b)
			}
			// The server allows "other"; strict does not let it write there.
			x := filepath.Join(other, tc.name+".txt")
			out, _ := call("write_file", map[string]string{"path": x, "content": "x"})
			if _, err := os.Stat(x); (err == nil) != tc.other {
				t.Errorf("write to %s named in its arguments: written=%v, want %v:\n%s", other, err == nil, tc.other, out)
			}
		})
	}
}
