package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/protocol"
)

// TestProtocolStatusOncePerChange: mcp.status is sent once per change
// (never twice the same status back to back), mcp.reconnect answers with
// the state after the change (connecting) and no "ready, 0 tools" status
// shows while the old session closes, and a removed server is reported
// with its last state and transport (issue 13 item 5).
func TestProtocolStatusOncePerChange(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	g := startGaps(t, protocol.UICapabilities{}, nil)
	ctx := ctxT(t, time.Minute)
	res, err := g.rt.MCPReconnect(ctx, &protocol.ServerParams{ID: "everything"})
	if err != nil {
		t.Fatal(err)
	}
	// The answer is the state after the change: connecting, never the old
	// session's "ready" while it closes. On a loaded machine the reconnect
	// may be over before the answer is made: then it is ready with its
	// tools, and the UI has been sent connecting first.
	switch {
	case res.Server.State == protocol.StateConnecting:
	case res.Server.State == protocol.StateReady && res.Server.Tools > 0:
		waitFor(t, 10*time.Second, "the connecting status of a reconnect that ended before its answer", func() bool {
			g.ui.mu.Lock()
			defer g.ui.mu.Unlock()
			for _, st := range g.ui.statuses {
				if st.Server.ID == "everything" && st.Server.State == protocol.StateConnecting {
					return true
				}
			}
			return false
		})
		t.Logf("the reconnect was over before its answer: %s with %d tools", res.Server.State, res.Server.Tools)
	default:
		t.Errorf("mcp.reconnect answered %s with %d tools, want connecting (or ready with its tools once reconnected)", res.Server.State, res.Server.Tools)
	}
	var seen []string
	waitFor(t, 30*time.Second, "everything ready again", func() bool {
		st, err := g.rt.MCPGet(ctx, &protocol.ServerParams{ID: "everything"})
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, fmt.Sprintf("%s/%d", st.Server.State, st.Server.Tools))
		return st.Server.State == protocol.StateReady && st.Server.Tools > 0
	})
	for _, s := range seen {
		if s == protocol.StateReady+"/0" {
			t.Errorf("mcp.get showed ready with 0 tools during the reconnect: %v", seen)
			break
		}
	}
	time.Sleep(500 * time.Millisecond) // late notifications
	writeJSONFile(t, g.config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{}}})
	var removed protocol.MCPStatusParams
	waitFor(t, 20*time.Second, "everything removed", func() bool {
		g.ui.mu.Lock()
		defer g.ui.mu.Unlock()
		for _, st := range g.ui.statuses {
			if st.Removed {
				removed = st
				return true
			}
		}
		return false
	})
	if removed.Server.ID != "everything" || removed.Server.Transport != "stdio" || removed.Server.State == "" {
		t.Errorf("removed status: %+v", removed)
	}
	time.Sleep(500 * time.Millisecond)
	g.ui.mu.Lock()
	defer g.ui.mu.Unlock()
	var last []byte
	var seq []string
	for i, st := range g.ui.statuses {
		b, _ := json.Marshal(st)
		seq = append(seq, fmt.Sprintf("%s/%d", st.Server.State, st.Server.Tools))
		if bytes.Equal(b, last) {
			t.Errorf("mcp.status %d repeats the one before: %s", i, b)
		}
		if st.Server.State == protocol.StateReady && st.Server.Tools == 0 {
			t.Errorf("mcp.status %d: ready with 0 tools: %s", i, b)
		}
		if st.Removed && i != len(g.ui.statuses)-1 {
			t.Errorf("a status after the removal: %v", seq)
		}
		last = b
	}
	t.Logf("statuses: %v", seq)
}

// TestProtocolLogoutAnswersConnecting: mcp.logout answers with the state
// after the change (connecting, logged out), and the server then lands in
// auth_required, each status sent once (issue 13 item 5).
func TestProtocolLogoutAnswersConnecting(t *testing.T) {
	demoEnv, err := servers.Start(context.Background(), servers.Options{AutoApprove: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { demoEnv.Close() })
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"notes": map[string]any{"transport": "http", "url": demoEnv.MCPURL},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version,
		Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true}}); err != nil {
		t.Fatal(err)
	}
	h.ui.setAnswer(answerWith(protocol.AnswerYes))
	h.ui.mu.Lock()
	h.ui.openURL = func(u string) bool {
		resp, err := http.Get(u) // the demo server approves at once
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	h.ui.mu.Unlock()
	if _, err := h.rt.MCPLogin(ctx, &protocol.LoginParams{ID: "notes"}); err != nil {
		t.Fatalf("mcp.login: %v", err)
	}
	waitFor(t, 10*time.Second, "notes ready", func() bool {
		g, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "notes"})
		return err == nil && g.Server.State == protocol.StateReady
	})
	res, err := h.rt.MCPLogout(ctx, &protocol.LogoutParams{ID: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Server.State != protocol.StateConnecting || (res.Server.Auth != nil && res.Server.Auth.LoggedIn) {
		t.Errorf("mcp.logout answered %+v, want connecting and logged out", res.Server)
	}
	waitFor(t, 10*time.Second, "notes waiting for a login", func() bool {
		g, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "notes"})
		return err == nil && g.Server.State == protocol.StateAuthRequired
	})
	time.Sleep(300 * time.Millisecond)
	h.ui.mu.Lock()
	defer h.ui.mu.Unlock()
	var last []byte
	for i, st := range h.ui.statuses {
		b, _ := json.Marshal(st)
		if bytes.Equal(b, last) {
			t.Errorf("mcp.status %d repeats the one before: %s", i, b)
		}
		last = b
	}
}
