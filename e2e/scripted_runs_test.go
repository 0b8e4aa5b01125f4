package e2e_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// Two runs of host serve's scripted model at once, with a script of runs:
// each plays its own queue (with the array form the second run took the
// first run's next step), and both call their tool by server/tool
// (issue 13 item 8).
func TestScriptedRunsHaveTheirOwnQueue(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, map[string]any{"runs": []map[string]any{{
		"prompt_contains": "echo",
		"steps": []map[string]any{
			callStep(call("everything/echo", map[string]any{"message": "twice"})),
			{"when_result_contains": "Echo: twice", "text": "echoed"},
			{"text": "not echoed"},
		},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--script", script, "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, 2*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "everything ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "everything"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	// Both confirms are held until both runs asked: the second run starts
	// while the first waits for its tool.
	var mu sync.Mutex
	asked := map[string]bool{}
	both := make(chan struct{})
	h.ui.setAnswer(func(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		mu.Lock()
		asked[p.RunID] = true
		if len(asked) == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if p.Tool == nil || p.Tool.Server != "everything" || p.Tool.Tool != "echo" {
			t.Errorf("confirm of run %s is not for everything/echo: %+v", p.RunID, p.Tool)
		}
		return &protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}, nil
	})
	var ids []string
	for _, prompt := range []string{"echo one", "echo two"} {
		r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.RunID)
	}
	for _, id := range ids {
		var st protocol.RunStatusParams
		waitFor(t, 60*time.Second, "run "+id+" to end", func() bool {
			var ok bool
			st, ok = h.ui.finalRun(id)
			return ok
		})
		if st.Status != protocol.RunCompleted || st.Text != "echoed" {
			t.Errorf("run %s: %s %q (%s), want completed \"echoed\": each run plays its own steps", id, st.Status, st.Text, st.Error)
		}
	}
}
