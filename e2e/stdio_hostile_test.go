package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// buildHostile builds e2e/internal/hostilestdio into the test's temporary
// directory.
func buildHostile(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hostilestdio")
	cmd := exec.Command("go", "build", "-o", bin, "./e2e/internal/hostilestdio")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/internal/hostilestdio: %v\n%s", err, out)
	}
	return bin
}

// TestStdioBannerServerFromNPM connects to time-mcp from npm, which writes
// "Starting Time MCP server..." on stdout before it speaks JSON-RPC. The
// session must skip the line, note it in the stderr tail and work.
func TestStdioBannerServerFromNPM(t *testing.T) {
	argv := testenv.NodeBin(t, "time-mcp")
	s, err := session.Connect(context.Background(), session.Options{ID: "time", Command: argv[0], Args: argv[1:]})
	if err != nil {
		t.Fatalf("connect to time-mcp: %v", err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "current_time", map[string]any{"format": "YYYY-MM-DD", "timezone": "UTC"})
	if err != nil {
		t.Fatalf("current_time: %v", err)
	}
	b, _ := json.Marshal(res.Content)
	if year := strconv.Itoa(time.Now().UTC().Year()); !strings.Contains(string(b), year) {
		t.Errorf("current_time = %s, want this year in it", b)
	}
	if tail := s.Stderr(); !strings.Contains(tail, "[stdout, not JSON-RPC] (#1) Starting Time MCP server...") {
		t.Errorf("stderr tail = %q, want the banner noted", tail)
	}
	if n := s.SkippedStdoutLines(); n < 1 {
		t.Errorf("SkippedStdoutLines = %d", n)
	}
}

// readTree reads the pids hostilestdio -tree recorded.
func readTree(t *testing.T, file string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var role string
		var pid int
		if _, err := fmt.Sscanf(line, "%s %d", &role, &pid); err == nil {
			pids[role] = pid
		}
	}
	if len(pids) != 3 {
		t.Fatalf("tree file = %q, want leader, grandchild and orphan", b)
	}
	return pids
}

// running reports whether pid is a process that has not exited (a zombie
// has).
func running(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && !strings.HasPrefix(string(b[i+1:]), " Z")
}

// TestServeShutdownDuringHungStdioCall asks `host serve` to shut down
// while a tool.call waits on a stdio server that never answers, ignores
// SIGTERM and stdin closing, and has a setsid child and a setsid orphan.
// The answer must come, and no process of the tree may be left running.
// The answer's bound is 15 s, 10x the ~1.5 s it takes on the 2-core
// reference machine under load: a shutdown that waited for the hung call
// would never answer.
func TestServeShutdownDuringHungStdioCall(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to inspect processes")
	}
	bin := buildHostile(t)
	dir := t.TempDir()
	// The server's files sit in a directory its sandbox grants (dir holds
	// the host's config, which no server may write).
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	treeFile, hangFile := filepath.Join(work, "tree"), filepath.Join(work, "hanging")
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"hostile": map[string]any{"transport": "stdio", "command": bin,
			"args":    []string{"-banner", "hostile server running on stdio", "-tree", treeFile, "-stubborn", "-hang-file", hangFile},
			"sandbox": map[string]any{"filesystem": map[string]any{"write": []string{work}}}},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"},
		Capabilities: protocol.UICapabilities{Confirm: true},
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the banner-printing server to be ready", func() bool {
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Servers) == 1 && l.Servers[0].State == protocol.StateReady
	})
	pids := readTree(t, treeFile)
	for role, pid := range pids {
		if !running(pid) {
			t.Fatalf("%s %d is not running before shutdown", role, pid)
		}
	}
	t.Cleanup(func() { // never leave them behind, whatever happened
		for _, pid := range pids {
			if p, err := os.FindProcess(pid); err == nil && running(pid) {
				_ = p.Kill()
			}
		}
	})

	h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	callDone := make(chan error, 1)
	go func() {
		_, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "hostile", Tool: "hang"})
		callDone <- err
	}()
	waitFor(t, 20*time.Second, "the server to be inside the hung call", func() bool {
		_, err := os.Stat(hangFile)
		return err == nil
	})

	start := time.Now()
	if _, err := h.rt.Shutdown(ctx, &protocol.Empty{}); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	answered := time.Since(start)
	t.Logf("shutdown answered after %v", answered.Round(time.Millisecond))
	if answered > 15*time.Second {
		t.Errorf("shutdown answered after %v with a call in flight, want < 15s (it takes ~1.5 s)", answered)
	}
	select {
	case <-h.exited:
		t.Logf("host serve exited after %v", time.Since(start).Round(time.Millisecond))
	case <-time.After(15 * time.Second):
		t.Fatal("host serve did not exit after shutdown")
	}
	waitFor(t, 2*time.Second, "every process of the server's tree to be gone", func() bool {
		for _, pid := range pids {
			if running(pid) {
				return false
			}
		}
		return true
	})
	for role, pid := range pids {
		if running(pid) {
			t.Errorf("%s %d still runs after shutdown", role, pid)
		}
	}
}
