package serve

import (
	"context"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// runProgress returns the handler that turns the progress reports of run
// id's tool calls into agent.event progress events.
func (s *service) runProgress(id string) func(runtime.ToolProgress) {
	return func(tp runtime.ToolProgress) {
		p := &protocol.AgentEventParams{
			RunID: id, Type: protocol.EventProgress, Step: tp.Step,
			Call:     &protocol.ToolCallInfo{ID: tp.CallID, PublicName: tp.PublicName, Server: tp.Server, Tool: tp.Tool},
			Progress: wireProgress(tp.Progress),
		}
		s.enqueue(func() { s.ui.AgentEvent(context.Background(), p) })
	}
}

// toolCallProgress returns the context a direct tool.call is made with:
// the server's progress reports become tool.progress notifications naming
// the request. The function it returns waits (briefly) until those
// notifications are written, so that none follows the answer.
func (s *service) toolCallProgress(ctx context.Context, p *protocol.ToolCallParams) (context.Context, func()) {
	reqID, ok := protocol.RequestID(ctx)
	if !ok {
		return ctx, func() {}
	}
	sent := false
	ctx = session.WithProgress(ctx, func(pr session.Progress) {
		sent = true // the session calls this in order, never at once
		n := &protocol.ToolProgressParams{RequestID: reqID, Server: p.Server, Tool: p.Tool, Progress: *wireProgress(pr)}
		s.enqueue(func() { _ = s.conn.Notify(protocol.MethodToolProgress, n) })
	})
	return ctx, func() {
		if !sent {
			return
		}
		written := make(chan struct{})
		s.enqueue(func() { close(written) })
		select {
		case <-written:
		case <-time.After(time.Second): // shutting down: the queue is closed
		}
	}
}

func wireProgress(p session.Progress) *protocol.Progress {
	return &protocol.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message}
}
