package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// A confined server that dies during a call of a refusal of its sandbox
// (as @cyanheads/git-mcp-server dies of a refused mkdir of its LOGS_DIR)
// is reported as such: that it exited, how, its stderr tail with the
// refusal (a real EACCES of Landlock) and the grant that allows the path,
// as a failed start is; host mcp call said only `calling "tools/call":
// EOF`. host serve's tool.call says the same. A server that dies of
// another error gets the exit and its stderr but no word of the sandbox,
// and one that does not die answers as before.
func TestSandboxCallExitHint(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	s := newSandboxHome(t)
	// Not granted under the default: its parent is in home.
	logs := filepath.Join(s.home, "logs", "probe")
	refused := filepath.Join(s.home, "logs")
	mkdir := func(path string) (string, int) {
		args, _ := json.Marshal(map[string]string{"path": path})
		return s.host(t, "mcp", "call", "probe", "mkdir", "--args", string(args), "--yes")
	}
	exited := `server "probe" exited during the call of tool "mkdir" (exit status 3)`
	hint := `the sandbox denied ` + refused + `; if the server needs it, grant it with "sandbox": {"filesystem": {"read": [` + quote(refused) + `]}} (or "write")`

	s.configure(t, `"default"`)
	out, code := mkdir(logs)
	t.Logf("host mcp call probe mkdir under the default sandbox: exit %d:\n%s", code, out)
	if code != 1 || !strings.Contains(out, exited) || !strings.Contains(out, "stderr: ") ||
		!strings.Contains(out, "fatal: the log directory: mkdir "+refused+": permission denied") || !strings.Contains(out, hint) {
		t.Errorf("a call the server died in of a refusal: exit %d, want 1, that it exited, its stderr and the grant:\n%s", code, out)
	}
	if _, err := os.Stat(refused); err == nil {
		t.Errorf("%s was made under the default sandbox", refused)
	}
	// The same server, in its own work directory: no refusal, no exit.
	if out, code := mkdir("logs"); code != 0 || !strings.Contains(out, "ok: made logs") {
		t.Errorf("mkdir in its work directory: exit %d:\n%s", code, out)
	}

	// Through host serve's tool.call, the error the UI shows.
	h := startServe(t, []string{"HOME=" + s.home, "MCP_HOST_CONFIG=" + s.global, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"})
	h.ui.setAnswer(answerWith("allow_once"))
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"},
		Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	waitFor(t, 30*time.Second, "probe ready", func() bool {
		g, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "probe"})
		return err == nil && g.Server.State == protocol.StateReady
	})
	args, _ := json.Marshal(map[string]string{"path": logs})
	_, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "probe", Tool: "mkdir", Arguments: args})
	if err == nil || !strings.Contains(err.Error(), exited) || !strings.Contains(err.Error(), hint) {
		t.Errorf("tool.call the server died in: want that it exited and the grant: %v", err)
	}

	// Unconfined, a server that dies of another error (its log directory
	// under a file): the exit and its stderr, no sandbox hint.
	s.configure(t, "false")
	file := filepath.Join(s.home, "notes.txt")
	out, code = mkdir(filepath.Join(file, "logs"))
	if code != 1 || !strings.Contains(out, exited) || !strings.Contains(out, "mkdir "+file+": not a directory") || strings.Contains(out, "sandbox") {
		t.Errorf("an unconfined server dying of ENOTDIR: exit %d, want 1, that it exited and its stderr, no sandbox:\n%s", code, out)
	}
}
