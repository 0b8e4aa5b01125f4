package e2e_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// An app's message continues the conversation that opened the app once
// that turn has ended: while the run still goes it is refused (before the
// user is asked anything), and after a cancelled run, whose conversation
// the runtime does not keep, it starts a new one.
func TestMCPAppsMessageAfterTheRun(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"hostile": map[string]any{"transport": "http", "url": firstOf(startAppsServer(t))},
	}}})
	show := adapter.PublicName("hostile", "show")
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"id": "c1", "name": show, "args": map[string]any{}}}},
		{"text": "shown"},
		{"text": "after the message"},
		{"calls": []map[string]any{{"id": "c2", "name": show, "args": map[string]any{}}}},
		{"text": "in a new conversation"},
	})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--script", script, "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, time.Minute)
	// The model's calls wait at their confirm until released; the app's
	// message is consented to.
	release := make(chan string)
	h.ui.setAnswer(func(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		if p.Kind == protocol.ConfirmKindAppMessage {
			return &protocol.ConfirmResult{Answer: protocol.AnswerYes}, nil
		}
		select {
		case a := <-release:
			return &protocol.ConfirmResult{Answer: a}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version,
		ClientInfo: protocol.Implementation{Name: "e2e-apps-message"}, Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "hostile ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "hostile"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	apps := protocol.NewAppCaller(h.conn)
	appOf := func(runID string) *protocol.AppInstance {
		var app *protocol.AppInstance
		waitFor(t, 10*time.Second, "the call's app", func() bool {
			for _, e := range h.ui.runEvents(runID) {
				if e.Type == protocol.EventToolCall && e.Call != nil && e.Call.App != nil {
					app = e.Call.App
				}
			}
			return app != nil
		})
		return app
	}
	msg := &protocol.AppMessageParams{Content: []protocol.Content{{Type: "text", Text: "more please"}}}

	r1, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "show"})
	if err != nil {
		t.Fatal(err)
	}
	msg.AppID = appOf(r1.RunID).ID
	// Only consents to messages count: the model's own call asks for its
	// confirm at any moment around here.
	messageConsents := func() int {
		n := 0
		for _, c := range h.ui.confirmsSeen() {
			if c.Kind == protocol.ConfirmKindAppMessage {
				n++
			}
		}
		return n
	}
	before := messageConsents()
	_, err = apps.AppMessage(ctx, msg)
	wantCode(t, "while the run goes", err, protocol.CodeFailed, "still going")
	if n := messageConsents() - before; n != 0 {
		t.Errorf("%d consents asked for a message that cannot be sent yet", n)
	}
	release <- protocol.AnswerAllowOnce
	waitFor(t, 10*time.Second, "r1 done", func() bool { _, ok := h.ui.finalRun(r1.RunID); return ok })
	next, err := apps.AppMessage(ctx, msg)
	if err != nil || next.Conversation != r1.Conversation {
		t.Fatalf("after the run: %+v, %v (want conversation %s)", next, err, r1.Conversation)
	}
	waitFor(t, 10*time.Second, "the message's run", func() bool { _, ok := h.ui.finalRun(next.RunID); return ok })
	if st, _ := h.ui.finalRun(next.RunID); st.Text != "after the message" {
		t.Errorf("the message's run: %+v", st)
	}

	r3, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "show again"})
	if err != nil {
		t.Fatal(err)
	}
	msg.AppID = appOf(r3.RunID).ID
	if _, err := h.rt.RunCancel(ctx, &protocol.RunCancelParams{RunID: r3.RunID}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "r3 cancelled", func() bool { st, ok := h.ui.finalRun(r3.RunID); return ok && st.Status == protocol.RunCancelled })
	fresh, err := apps.AppMessage(ctx, msg)
	if err != nil || fresh.Conversation == r3.Conversation || fresh.Conversation == "" {
		t.Fatalf("after a cancelled run: %+v, %v (want a new conversation, not %s)", fresh, err, r3.Conversation)
	}
	waitFor(t, 10*time.Second, "the fresh run", func() bool { _, ok := h.ui.finalRun(fresh.RunID); return ok })
	if st, _ := h.ui.finalRun(fresh.RunID); st.Text != "in a new conversation" {
		t.Errorf("the fresh run: %+v", st)
	}
}
