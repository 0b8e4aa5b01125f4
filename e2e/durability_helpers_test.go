package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/internal/atomicfile"
)

// world is one user's machine for the durability tests: a HOME of its
// own with the XDG config, cache and data directories in it, so that
// every state file lands where a real user's would (no MCP_HOST_CONFIG,
// MCP_HOST_CACHE_DIR or MCP_HOST_DATA_DIR), and a project directory the
// commands run in. Tokens go to the file store.
type world struct {
	home, project string
	env           []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	w := &world{home: home, project: filepath.Join(home, "project")}
	if err := os.MkdirAll(w.project, 0o700); err != nil {
		t.Fatal(err)
	}
	w.env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"MCP_HOST_CONFIG=", "MCP_HOST_CACHE_DIR=", "MCP_HOST_DATA_DIR=", "MCP_HOST_SERVERS=", "MCP_HOST_REGISTRY=",
		"MCP_HOST_TOKEN_STORE=file", atomicfile.FaultEnv + "="}
	return w
}

// configDir holds the global config, the permissions, approvals and token
// files; cacheDir the kept catalogs and the registry cache.
func (w *world) configDir() string { return filepath.Join(w.home, ".config", "mcp-host") }
func (w *world) cacheDir() string  { return filepath.Join(w.home, ".cache", "mcp-host") }
func (w *world) global() string    { return filepath.Join(w.configDir(), "config.json") }

// ran is a finished host command.
type ran struct {
	out, errOut string
	state       *os.ProcessState
}

func (r ran) code() int { return r.state.ExitCode() }

// killed reports whether the process died of SIGKILL.
func (r ran) killed() bool { return killedBySIGKILL(r.state) }

func killedBySIGKILL(st *os.ProcessState) bool {
	ws, ok := st.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// run runs the host binary in the world's project directory.
func (w *world) run(t *testing.T, env []string, args ...string) ran {
	t.Helper()
	cmd := exec.Command(buildHost(t), args...)
	cmd.Dir = w.project
	cmd.Env = append(append(os.Environ(), w.env...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ran{stdout.String(), stderr.String(), cmd.ProcessState}
}

// mustRun runs a command that must succeed.
func (w *world) mustRun(t *testing.T, args ...string) ran {
	t.Helper()
	r := w.run(t, nil, args...)
	if r.code() != 0 {
		t.Fatalf("host %s: exit %d\n%s%s", strings.Join(args, " "), r.code(), r.out, r.errOut)
	}
	return r
}

// killAt is the MCP_HOST_FAULT setting that kills the host at the n-th
// write of a file whose path holds match reaching step.
func killAt(p killPoint, match string) []string {
	return []string{fmt.Sprintf("%s=atomicfile:%s:%d:kill:%s", atomicfile.FaultEnv, p.step, p.n, match)}
}

// fullDisk is the MCP_HOST_FAULT setting that makes every write of a file
// whose path holds match find the disk full at step.
func fullDisk(step atomicfile.Step, match string) []string {
	return []string{fmt.Sprintf("%s=atomicfile:%s:1:enospc:%s", atomicfile.FaultEnv, step, match)}
}

// traceEnv makes the host report every fault point it reaches.
var traceEnv = []string{atomicfile.FaultEnv + "=atomicfile:trace"}

// killPoint is one place a write can die: a step of the n-th write.
type killPoint struct {
	step atomicfile.Step
	n    int
}

func (p killPoint) String() string { return fmt.Sprintf("%s#%d", p.step, p.n) }

// tracePoint is a line of the trace; it may follow a prompt printed
// without a newline.
var tracePoint = regexp.MustCompile(`mcp-host fault point: atomicfile (\w+) (\S+)`)

// killPoints reads a traced run's stderr: every step each write of a file
// whose path holds match reached, in order.
func killPoints(t *testing.T, stderr, match string) []killPoint {
	t.Helper()
	seen := map[atomicfile.Step]int{}
	var out []killPoint
	for _, m := range tracePoint.FindAllStringSubmatch(stderr, -1) {
		if !strings.Contains(m[2], match) {
			continue
		}
		step := atomicfile.Step(m[1])
		seen[step]++
		out = append(out, killPoint{step, seen[step]})
	}
	if len(out) == 0 {
		t.Fatalf("the traced run wrote no file matching %q:\n%s", match, stderr)
	}
	return out
}

// ctxTimeout is a context ended after d.
func ctxTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// temps counts the temporary files writes left in dir and below.
func temps(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.HasSuffix(d.Name(), ".tmp") {
			n++
		}
		return nil
	})
	return n
}

// ageTemps makes the temporary files under dir older than
// atomicfile.StaleTemp, as if the kill that left them was long ago.
func ageTemps(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-atomicfile.StaleTemp - time.Minute)
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".tmp") {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Error(err)
			}
		}
		return nil
	})
}

// sweptBy runs write after ageing the temporary files the kill left in
// dir, and fails the test if any is left: the next write of a file
// removes its dead writers' temporary files.
func sweptBy(t *testing.T, dir string, write func() ran) ran {
	t.Helper()
	ageTemps(t, dir)
	r := write()
	if n := temps(t, dir); n != 0 {
		t.Errorf("%d temporary files left after the next write", n)
	}
	return r
}

// readOr returns the file's bytes, or nil when it does not exist.
func readOr(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

// tally counts, per state file, what the kill matrix found; the parent
// test prints it (docs/DURABILITY.md keeps a run's numbers).
type tally struct {
	mu   sync.Mutex
	rows map[string]*tallyRow
}

type tallyRow struct {
	points, lost, unstartable, old, new, temps int
}

func (ta *tally) add(kind string, lost, unstartable int, fresh bool, leftTemps int) {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	if ta.rows == nil {
		ta.rows = map[string]*tallyRow{}
	}
	r := ta.rows[kind]
	if r == nil {
		r = &tallyRow{}
		ta.rows[kind] = r
	}
	r.points++
	r.lost += lost
	r.unstartable += unstartable
	if fresh {
		r.new++
	} else {
		r.old++
	}
	r.temps += leftTemps
}

func (ta *tally) table(order []string) string {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	var b strings.Builder
	b.WriteString("| state file | kill points | lost acknowledged writes | unstartable hosts | in-flight write old / new | temp files left |\n|---|---|---|---|---|---|\n")
	for _, k := range order {
		if r := ta.rows[k]; r != nil {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d / %d | %d |\n", k, r.points, r.lost, r.unstartable, r.old, r.new, r.temps)
		}
	}
	return b.String()
}

// loginRun is `host mcp login <id> --no-browser` driven as a person at the
// terminal would (consent answered, the authorization URL fetched from
// an authorization server that approves at once, the redirect pasted
// back); it returns when the process ends, at whatever point a fault
// ended it.
func (w *world) loginRun(t *testing.T, id string, env []string) ran {
	t.Helper()
	cmd := exec.Command(buildHost(t), "mcp", "login", id, "--no-browser")
	cmd.Dir = w.project
	cmd.Env = append(append(os.Environ(), w.env...), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	text := func() string { return stdout.String() + stderr.String() }
	wait := func(marker string) bool {
		deadline := time.After(30 * time.Second)
		for !strings.Contains(text(), marker) {
			select {
			case <-done:
				return false
			case <-deadline:
				cmd.Process.Kill()
				<-done
				t.Fatalf("login %s: no %q in:\n%s", id, marker, text())
			case <-time.After(10 * time.Millisecond):
			}
		}
		return true
	}
	if wait("Open the login page? [Y/n]") {
		io.WriteString(stdin, "y\n")
		if wait("Paste that whole address here:") {
			m := regexp.MustCompile(`(?m)^\s+(http://127\.0\.0\.1:\d+/authorize\?\S+)$`).FindStringSubmatch(text())
			if m == nil {
				cmd.Process.Kill()
				<-done
				t.Fatalf("login %s: no URL printed:\n%s", id, text())
			}
			io.WriteString(stdin, autoRedirect(t, m[1])+"\n")
		}
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("login %s did not end:\n%s", id, text())
	}
	return ran{stdout.String(), stderr.String(), cmd.ProcessState}
}

// autoRedirect follows the authorization URL of a server that approves
// at once and returns where the browser would end: the redirect with the
// code.
func autoRedirect(t *testing.T, authURL string) string {
	t.Helper()
	noRedirect := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.Contains(loc, "code=") {
		t.Fatalf("authorization: status %d, Location %q", resp.StatusCode, loc)
	}
	return loc
}

// buildLazyStdio builds e2e/internal/lazystdio into dir once per test.
func buildLazyStdio(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "lazystdio")
	cmd := exec.Command("go", "build", "-o", bin, "./e2e/internal/lazystdio")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/internal/lazystdio: %v\n%s", err, out)
	}
	return bin
}

// waitExit waits for a host serve to end (putting the result back for
// its cleanup) and reports whether it did within d.
func waitExit(h *servedHost, d time.Duration) bool {
	select {
	case err := <-h.exited:
		h.exited <- err
		return true
	case <-time.After(d):
		return false
	}
}
