package runtime_test

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/process"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// A server whose process exits during start shows its stderr tail in its
// status (issue 36): before, Status.Stderr came from a live session only,
// so a server that never started said nothing of what it wrote.
func TestFailedStartKeepsStderrTail(t *testing.T) {
	e, _ := crashEntry(t, "dies", "start")
	m := runtime.NewManager(runtime.ManagerOptions{MinBackoff: time.Hour, MaxBackoff: time.Hour})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{e})
	st := waitState(t, m, "dies", runtime.StateError, 20*time.Second)
	if !strings.Contains(st.Stderr, "crash server: cannot start (on purpose)") {
		t.Errorf("stderr = %q, want the server's line (last error %q)", st.Stderr, st.LastError)
	}
	// And on the manager's other read of the status.
	for _, l := range m.List() {
		if l.ID == "dies" && !strings.Contains(l.Stderr, "cannot start (on purpose)") {
			t.Errorf("List: stderr = %q", l.Stderr)
		}
	}
}

// The tail of a failed start is the live tail's: bounded (the kept bytes
// and the note that earlier ones were dropped), secrets masked; and the
// next successful start replaces it with its own.
func TestFailedStartStderrBoundedMaskedAndReplaced(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the server is a sh script")
	}
	const secret = "zq-STDERR-SECRET-4471"
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	flag := filepath.Join(t.TempDir(), "started-once")
	// The first start writes more than the tail keeps, the secret and a
	// marker, and exits; the next runs the crash server, which serves.
	script := `if [ -e "$FLAG" ]; then exec "$EXE"; fi; : > "$FLAG"
head -c 200000 /dev/zero | tr '\0' x >&2; echo >&2
echo "token $TOKEN" >&2; echo boom-marker >&2; exit 3`
	e := config.ServerEntry{ID: "once", Source: "global", Config: config.ServerConfig{
		Transport: "stdio", Command: "sh", Args: []string{"-c", script},
		Env: map[string]string{"FLAG": flag, "EXE": exe, "TOKEN": "${MY_KEY}", crashServerEnv: "call",
			"CRASH_SERVER_STARTS": filepath.Join(t.TempDir(), "starts")},
	}}
	seen := make(chan runtime.Status, 64)
	m := runtime.NewManager(runtime.ManagerOptions{
		MinBackoff: time.Hour, MaxBackoff: time.Hour,
		LookupEnv: func(name string) (string, bool) {
			if name == "MY_KEY" {
				return secret, true
			}
			return "", false
		},
		OnStatus: func(st runtime.Status) {
			if st.State == runtime.StateError {
				select {
				case seen <- st:
				default:
				}
			}
		},
	})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{e})
	failed := waitState(t, m, "once", runtime.StateError, 20*time.Second)
	if !strings.HasSuffix(failed.Stderr, "boom-marker\n") {
		t.Errorf("stderr does not end with the marker: …%q", tail(failed.Stderr, 200))
	}
	if !strings.HasPrefix(failed.Stderr, "[… earlier output dropped …]\n") {
		t.Errorf("stderr does not say that earlier output was dropped: %q…", head(failed.Stderr, 80))
	}
	if n := len(failed.Stderr); n > process.DefaultStderrBytes+64 {
		t.Errorf("stderr is %d bytes, over the bound of %d", n, process.DefaultStderrBytes)
	}
	if strings.Contains(failed.Stderr, secret) || !strings.Contains(failed.Stderr, "token ***") {
		t.Errorf("stderr shows the secret or no mask: …%q", tail(failed.Stderr, 200))
	}
	// The OnStatus report of the failure carries it too (it may come
	// just after Get sees the state).
	for reported := false; !reported; {
		select {
		case st := <-seen:
			if st.State == runtime.StateError {
				reported = true
				if !strings.Contains(st.Stderr, "boom-marker") {
					t.Errorf("the error status reported to OnStatus has no stderr tail: …%q", tail(st.Stderr, 200))
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no error status reported to OnStatus")
		}
	}
	if err := m.Reconnect("once"); err != nil {
		t.Fatal(err)
	}
	ready := waitState(t, m, "once", runtime.StateReady, 20*time.Second)
	if strings.Contains(ready.Stderr, "boom-marker") {
		t.Errorf("after a successful start, stderr still shows the failed one's: …%q", tail(ready.Stderr, 200))
	}
}

// A server the sandbox keeps from doing what it needs at start (here, to
// write outside what its policy grants) and that exits shows what it
// wrote to stderr, as a confined server's failed start.
func TestSandboxRefusedStartKeepsStderrTail(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("Landlock is the Linux mechanism")
	}
	if ok, why := sandbox.Available(); !ok {
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatalf("no sandbox here: %s", why)
		}
		t.Skipf("SKIPPED: no sandbox here: %s", why)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	m := runtime.NewManager(runtime.ManagerOptions{Sandbox: &runtime.SandboxOptions{}, MinBackoff: time.Hour, MaxBackoff: time.Hour})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{stdioEntry("boxed", &sandbox.Policy{Base: sandbox.BaseStrict}, "-c",
		`echo x > "`+outside+`" || { echo refused-marker >&2; exit 3; }; exit 4`)})
	st := waitState(t, m, "boxed", runtime.StateError, 20*time.Second)
	if !strings.Contains(st.LastError, "exit status 3") {
		t.Fatalf("the write outside was not refused: last error %q", st.LastError)
	}
	if !strings.Contains(st.Stderr, "refused-marker") {
		t.Errorf("stderr = %q, want the server's refusal line", st.Stderr)
	}
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
