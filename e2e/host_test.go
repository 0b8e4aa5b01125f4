package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

var (
	hostOnce sync.Once
	hostBin  string
	hostErr  error
	hostDir  string
)

// TestMain removes the shared build of cmd/host after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if hostDir != "" {
		os.RemoveAll(hostDir)
	}
	os.Exit(code)
}

// buildHost builds cmd/host once for the whole package and returns the
// binary's path; $E2E_HOST_BIN names a host built elsewhere instead (to
// test one binary while cmd/host is being edited).
func buildHost(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("E2E_HOST_BIN"); bin != "" {
		return bin
	}
	root := testenv.RepoRoot(t)
	hostOnce.Do(func() {
		hostDir, hostErr = os.MkdirTemp("", "mcp-host-e2e-")
		if hostErr != nil {
			return
		}
		hostBin = filepath.Join(hostDir, "host")
		cmd := exec.Command("go", "build", "-o", hostBin, "./cmd/host")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			hostErr = &buildError{err: err, out: string(out)}
		}
	})
	if hostErr != nil {
		t.Fatalf("go build ./cmd/host: %v", hostErr)
	}
	return hostBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
