package protocol_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// progressUI is a UI that wants tool.progress (ToolProgressHandler).
type progressUI struct {
	got chan protocol.ToolProgressParams
}

func (u *progressUI) Confirm(context.Context, *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	return &protocol.ConfirmResult{Answer: protocol.AnswerDeny}, nil
}
func (u *progressUI) Prompt(context.Context, *protocol.PromptParams) (*protocol.PromptResult, error) {
	return &protocol.PromptResult{Cancelled: true}, nil
}
func (u *progressUI) OpenURL(context.Context, *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	return &protocol.OpenURLResult{}, nil
}
func (u *progressUI) Elicit(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return &protocol.ElicitResult{Action: "decline"}, nil
}
func (u *progressUI) MCPStatus(context.Context, *protocol.MCPStatusParams) error   { return nil }
func (u *progressUI) RunStatus(context.Context, *protocol.RunStatusParams) error   { return nil }
func (u *progressUI) AgentEvent(context.Context, *protocol.AgentEventParams) error { return nil }
func (u *progressUI) Log(context.Context, *protocol.LogParams) error               { return nil }
func (u *progressUI) ToolProgress(_ context.Context, p *protocol.ToolProgressParams) error {
	u.got <- *p
	return nil
}

// A request handler knows its request's id (RequestID), and a tool.progress
// naming it reaches a UI's ToolProgressHandler through ClientHandler.
func TestToolProgressNamesItsRequest(t *testing.T) {
	var runtimeEnd *protocol.Conn
	seen := make(chan any, 1)
	handler := func(ctx context.Context, method string, _ json.RawMessage) (any, error) {
		id, ok := protocol.RequestID(ctx)
		if !ok {
			t.Error("RequestID: no id in a request handler")
		}
		seen <- id
		_ = runtimeEnd.Notify(protocol.MethodToolProgress, &protocol.ToolProgressParams{RequestID: id, Server: "s", Tool: "t",
			Progress: &protocol.Progress{Progress: 1, Total: 2, Message: "half"}})
		return map[string]any{}, nil
	}
	ui := &progressUI{got: make(chan protocol.ToolProgressParams, 1)}
	uiEnd, rt := pair(t, protocol.ClientHandler(ui), handler, protocol.ConnOptions{})
	runtimeEnd = rt
	if err := uiEnd.Call(context.Background(), protocol.MethodToolCall, map[string]any{"server": "s", "tool": "t"}, nil); err != nil {
		t.Fatal(err)
	}
	id := <-seen
	select {
	case p := <-ui.got:
		if p.Progress == nil || p.Progress.Progress != 1 || p.Progress.Total != 2 || p.Server != "s" || p.Tool != "t" {
			t.Errorf("tool.progress = %+v", p)
		}
		if got, _ := json.Marshal(p.RequestID); string(got) != mustJSON(id) {
			t.Errorf("request_id = %s, want %s", got, mustJSON(id))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no tool.progress reached the UI")
	}
	if _, ok := protocol.RequestID(context.Background()); ok {
		t.Error("RequestID outside a handler")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
