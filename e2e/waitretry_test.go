package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// A tool.call to an eager server between two connect attempts (its first
// start failed; its backoff has scheduled the next) waits for that attempt
// within the call's wait_ready_ms and succeeds, instead of failing at once
// with -32003 not ready: server-everything behind a shell that fails its
// first three starts. Then a mistyped tool's error names the tool meant.
func TestToolCallWaitsForScheduledRetry(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	config := dir + "/config.json"
	// Three failed starts: the backoff's third delay (1.6 to 2 s) leaves
	// the test, however loaded the machine, time to see the server in
	// error before the attempt that succeeds.
	script := `n=$(cat starts 2>/dev/null || echo 0); n=$((n+1)); echo $n > starts; if [ $n -gt 3 ]; then exec "$@"; fi; echo "start $n fails (on purpose)" >&2; exit 3`
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"flaky": map[string]any{"command": "sh", "args": append([]string{"-c", script, "sh"}, everything...), "start": "eager"},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "HOME=" + dir},
		"--permissions", dir+"/permissions.json", "--allow", "flaky/*")
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-retry"}}); err != nil {
		t.Fatal(err)
	}
	var st *protocol.ServerStatus
	waitFor(t, 30*time.Second, "flaky in backoff after its failed start", func() bool {
		got, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "flaky"})
		if err == nil {
			st = &got.Server.ServerStatus
		}
		return err == nil && got.Server.State == protocol.StateError && !got.Server.NextRetryAt.IsZero() && got.Server.Attempts == 3
	})
	if !strings.Contains(st.LastError, "start 3 fails") {
		t.Errorf("the failed start's error does not carry its stderr: %q", st.LastError)
	}
	res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "flaky", Tool: "echo", Arguments: []byte(`{"message":"after the retry"}`)})
	if err != nil {
		t.Fatalf("tool.call to a server whose retry was due at %v: %v", st.NextRetryAt, err)
	}
	if b, _ := json.Marshal(res); !strings.Contains(string(b), "after the retry") {
		t.Errorf("echo answered %s", b)
	}
	// A mistyped tool is named with the tool meant, as the CLI does.
	_, err = h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "flaky", Tool: "ecoh"})
	if err == nil || !strings.Contains(err.Error(), `has no tool "ecoh": did you mean "echo"?`) {
		t.Errorf("tool.call of a mistyped tool: %v", err)
	}
}
