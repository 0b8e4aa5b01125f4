package session_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// treePids reads the pids a raw server recorded under RAW_PID_FILE.
func treePids(t *testing.T, file string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var role string
		var pid int
		if _, err := fmt.Sscanf(line, "%s %d", &role, &pid); err != nil {
			t.Fatalf("pid file line %q: %v", line, err)
		}
		out[role] = pid
	}
	for _, role := range []string{"leader", "grandchild", "orphan"} {
		if out[role] == 0 {
			t.Fatalf("pid file %q lacks %s", b, role)
		}
	}
	return out
}

// exists reports whether pid is in the process table at all (a zombie
// counts: it has not been reaped).
func exists(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return err == nil
}

// TestStdioCloseDuringHungCall closes a session while a call waits on a
// server that never answers, ignores SIGTERM and stdin closing, and has
// started a setsid child and a setsid grandchild whose parent exited.
// Close must come back well within 5 s, fail the call, and leave no process
// behind: not running, not a zombie.
func TestStdioCloseDuringHungCall(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to inspect processes")
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	o := rawOptions(t, map[string]string{"RAW_PID_FILE": pidFile, "RAW_STUBBORN": "1"})
	o.ShutdownGrace = 2 * time.Second // the default
	s, err := session.Connect(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	pids := treePids(t, pidFile)
	for role, pid := range pids {
		if !alive(pid) {
			t.Fatalf("%s %d not running before Close", role, pid)
		}
	}
	callErr := make(chan error, 1)
	go func() {
		_, err := s.CallTool(context.Background(), "hang", nil)
		callErr <- err
	}()
	waitFor(t, "the server to be hanging", 5*time.Second, func() bool {
		return strings.Contains(s.Stderr(), "hanging on purpose")
	})

	start := time.Now()
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return within 20 s")
	}
	took := time.Since(start)
	t.Logf("Close returned after %v", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("Close took %v with a call in flight, want < 5s", took)
	}
	select {
	case err := <-callErr:
		if !errors.Is(err, session.ErrClosed) || !strings.Contains(err.Error(), "closed while the call waited") {
			t.Errorf("the hung call ended with %v, want ErrClosed saying the connection was closed", err)
		}
	case <-time.After(2 * time.Second):
		t.Error("the hung call still waits after Close")
	}
	// Gone and reaped: nothing under its pid, not even a zombie (the reaper
	// may need a moment on a loaded machine: a full race run with e2e beside
	// it once needed more than 5 s; the bound is liveness, not speed).
	waitFor(t, "every process of the tree to be gone and reaped", 15*time.Second, func() bool {
		for _, pid := range pids {
			if exists(pid) {
				return false
			}
		}
		return true
	})
}
