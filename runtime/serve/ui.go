package serve

import (
	"context"
	"fmt"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// confirmTool asks the UI about a tool call.
func (s *service) confirmTool(ctx context.Context, req *permission.Request) (permission.Response, error) {
	timeout := s.opts.ConfirmTimeout
	if timeout <= 0 {
		timeout = permission.DefaultConfirmTimeout
	}
	title := fmt.Sprintf("Allow %s/%s?", req.Server, req.Tool)
	msg := fmt.Sprintf("The model wants to call tool %q of MCP server %q.", req.Tool, req.Server)
	app, msg := appAsking(ctx, req.Tool, msg) // apps_wire.go: an app's call says so
	if note := req.ChangeNote(); note != "" {
		msg += " " + note
	}
	ctx, done := confirmContext(ctx)
	defer done()
	var runID string
	var step int
	if rs, ok := ctx.Value(runKey{}).(*runState); ok {
		// A call a local tool of the run makes (a resource read) has no
		// call id of the model's: the confirm names the run alone.
		runID = rs.id
		if req.CallID != "" {
			// The call's permission event (asked) reaches the UI first.
			var err error
			if step, err = s.beforeConfirm(ctx, rs, req.CallID); err != nil {
				return permission.Response{}, fmt.Errorf("ask the UI: %w", err)
			}
		}
	}
	res, err := s.ui.Confirm(ctx, &protocol.ConfirmParams{
		RunID: runID, CallID: req.CallID, Step: step,
		Kind: protocol.ConfirmKindToolCall, Title: title, Message: msg,
		Options: []string{protocol.AnswerAllowOnce, protocol.AnswerAlwaysTool, protocol.AnswerAlwaysServer, protocol.AnswerDeny, protocol.AnswerDenyWithReason},
		Tool: &protocol.ConfirmTool{
			Server: req.Server, Tool: req.Tool, PublicName: req.PublicName, Title: req.Title,
			Arguments: req.Arguments, ArgumentsTruncated: req.ArgumentsTruncated,
			Annotations: wireAnnotations(req.Annotations), Changed: req.Changed,
			ChangedFields: req.ChangedFields, Description: req.Description,
		},
		TimeoutMS: timeout.Milliseconds(),
		App:       app,
	})
	if err != nil {
		return permission.Response{}, fmt.Errorf("ask the UI: %w", err)
	}
	return permission.Response{Answer: permission.Answer(res.Answer), Reason: res.Reason}, nil
}

// elicit passes a server's elicitation request to the UI, or declines when
// the UI cannot answer.
func (s *service) elicit(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	s.mu.Lock()
	can := s.initialized && s.caps.Elicit
	s.mu.Unlock()
	if p.Mode == "url" || (p.Mode == "" && p.URL != "") {
		return s.elicitURL(ctx, server, p)
	}
	if !can {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return s.elicitForm(ctx, server, p)
}
