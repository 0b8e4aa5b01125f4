package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// hostBuild is one build of cmd/host, shared by the package's tests.
type hostBuild struct {
	once sync.Once
	bin  string
	err  error
}

var (
	hostDir    string // holds both builds; removed by TestMain
	raceHost   hostBuild
	plainHost  hostBuild
	memoryTest sync.Map // top-level test name -> true: measures the host's memory
)

// hostGORACE is the race detector's setting for the hosts the tests start
// (see [buildHost]): a data race ends the host at once (halt_on_error), so
// the test that met it fails with the report on the host's stderr, and a
// host waits 50 ms at exit, not the default second, for reports of its
// last goroutines (the CLI tests start hundreds of one-shot hosts).
const hostGORACE = "halt_on_error=1 atexit_sleep_ms=50"

// TestMain sets GORACE and a cache directory of the tests' own for the
// hosts the tests start (unless set) and removes the shared builds of
// cmd/host after the tests.
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv("GORACE"); !set {
		os.Setenv("GORACE", hostGORACE)
	}
	// No host a test starts reads or writes the user's own cache (kept
	// catalogs would make its lazy servers start idle); tests that start
	// several hosts give each its own directory.
	cache := ""
	if _, set := os.LookupEnv("MCP_HOST_CACHE_DIR"); !set {
		if d, err := os.MkdirTemp("", "mcp-host-e2e-cache-"); err == nil {
			cache = d
			os.Setenv("MCP_HOST_CACHE_DIR", d)
		}
	}
	// The tmux sessions of this test binary live on a tmux server of its
	// own: session names are made from test directories ("…-001"), which
	// another run of the suite at the same time (another checkout, a
	// developer's run) makes too, and a shared server refuses the second
	// as a duplicate session.
	tmuxDir, err := os.MkdirTemp("", "mcp-host-e2e-tmux-")
	if err == nil {
		os.Setenv("TMUX_TMPDIR", tmuxDir)
		os.Unsetenv("TMUX") // a run from inside tmux must not talk to that server
	}
	code := m.Run()
	if cache != "" {
		os.RemoveAll(cache)
	}
	if tmuxDir != "" {
		_ = exec.Command("tmux", "kill-server").Run() // its sessions are gone; the server may linger
		os.RemoveAll(tmuxDir)
	}
	schemaSummary()
	if hostDir != "" {
		os.RemoveAll(hostDir)
	}
	os.Exit(code)
}

// buildHost builds cmd/host once for the whole package and returns the
// binary's path; $E2E_HOST_BIN names a host built elsewhere instead (to
// test one binary while cmd/host is being edited).
//
// The host is built with -race when this test binary is (go test -race, as
// `make test` runs it) or E2E_HOST_RACE=1, so every end-to-end test also
// hunts data races in the host; E2E_HOST_RACE=0 turns that off. A test that
// measures the host's memory calls [measuresMemory] first and gets a build
// without -race, whose shadow memory would multiply what it measures.
func buildHost(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("E2E_HOST_BIN"); bin != "" {
		return bin
	}
	top, _, _ := strings.Cut(t.Name(), "/")
	if _, plain := memoryTest.Load(top); plain || !hostRace() {
		return build(t, &plainHost, "host")
	}
	return build(t, &raceHost, "host-race", "-race")
}

// measuresMemory marks t's test as one that measures the host's memory:
// buildHost gives it a host built without -race.
func measuresMemory(t *testing.T) {
	top, _, _ := strings.Cut(t.Name(), "/")
	memoryTest.Store(top, true)
}

// hostRace reports whether the host under test is built with -race.
func hostRace() bool {
	switch os.Getenv("E2E_HOST_RACE") {
	case "1":
		return true
	case "0":
		return false
	}
	return raceEnabled
}

// build builds cmd/host into hostDir/name with flags, once per b.
func build(t *testing.T, b *hostBuild, name string, flags ...string) string {
	t.Helper()
	root := testenv.RepoRoot(t)
	hostDirOnce.Do(func() { hostDir, hostDirErr = os.MkdirTemp("", "mcp-host-e2e-") })
	if hostDirErr != nil {
		t.Fatalf("temporary directory for cmd/host: %v", hostDirErr)
	}
	b.once.Do(func() {
		b.bin = filepath.Join(hostDir, name)
		args := append(append([]string{"build"}, flags...), "-o", b.bin, "./cmd/host")
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = &buildError{err: err, out: string(out)}
		}
	})
	if b.err != nil {
		t.Fatalf("go build %s ./cmd/host: %v", strings.Join(flags, " "), b.err)
	}
	// The sandbox's helper, beside every host built here (never with
	// -race, which would make it a cgo binary).
	helperBuild.once.Do(func() {
		cmd := exec.Command("go", "build", "-o", filepath.Join(hostDir, "host-confine"), "./cmd/host-confine")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			helperBuild.err = &buildError{err: err, out: string(out)}
		}
	})
	if helperBuild.err != nil {
		t.Fatalf("go build ./cmd/host-confine: %v", helperBuild.err)
	}
	return b.bin
}

// helperBuild is cmd/host-confine, built once beside the hosts.
var helperBuild hostBuild

var (
	hostDirOnce sync.Once
	hostDirErr  error
)

// raceEnabled reports whether this test binary was built with -race.
var raceEnabled = func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}()

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
