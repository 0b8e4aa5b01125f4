//go:build windows

package session_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
	"golang.org/x/sys/windows"
)

// setsidAttr has no Windows meaning: a child is in its parent's job anyway.
func setsidAttr() *syscall.SysProcAttr { return nil }

// stillActive reports whether the process with pid is running.
func stillActive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return false
	}
	return code == 259 // STILL_ACTIVE
}

// TestStdioCloseEndsTheJob closes a session whose server hangs in a call
// and has started a child and a grandchild whose parent exited: Close must
// not wait for the hung call beyond the shutdown grace, and the Job Object
// must take every process down. The processes' end is awaited for 30 s, not
// the 2 s it takes on a quiet machine: make test runs this under Wine at
// nice 19 beside the Linux suite, where wineserver gets a sliver of the
// CPU (a 2 s wait failed there once while the job had been closed).
func TestStdioCloseEndsTheJob(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	s, err := session.Connect(context.Background(), rawOptions(t, map[string]string{"RAW_PID_FILE": pidFile}))
	if err != nil {
		t.Fatal(err)
	}
	pids := treePids(t, pidFile)
	go s.CallTool(context.Background(), "hang", nil)
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	waitFor(t, "every process of the job to end", 30*time.Second, func() bool {
		for _, pid := range pids {
			if stillActive(pid) {
				return false
			}
		}
		return true
	})
}
