package serve

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// runProgress returns the handler that turns the progress reports of run
// id's tool calls into agent.event progress events, and the states of the
// tasks servers make of them into agent.event task events.
func (s *service) runProgress(id string) func(runtime.ToolProgress) {
	return func(tp runtime.ToolProgress) {
		p := &protocol.AgentEventParams{
			RunID: id, Type: protocol.EventProgress, Step: tp.Step,
			Call: &protocol.ToolCallInfo{ID: tp.CallID, PublicName: tp.PublicName, Server: tp.Server, Tool: tp.Tool},
		}
		if tp.Task != nil {
			p.Type, p.Task = protocol.EventTask, wireTask(*tp.Task)
		} else {
			p.Progress = wireProgress(tp.Progress)
		}
		s.enqueue(func() { s.ui.AgentEvent(context.Background(), p) })
	}
}

// toolCallProgress returns the context a direct tool.call is made with:
// the server's progress reports, and the states of the task it makes of
// the call, become tool.progress notifications naming the request. The function it returns waits (briefly) until those
// notifications are written, so that none follows the answer.
func (s *service) toolCallProgress(ctx context.Context, p *protocol.ToolCallParams) (context.Context, func()) {
	reqID, ok := protocol.RequestID(ctx)
	if !ok {
		return ctx, func() {}
	}
	var sent atomic.Bool
	notify := func(n *protocol.ToolProgressParams) {
		sent.Store(true)
		n.RequestID, n.Server, n.Tool = reqID, p.Server, p.Tool
		s.enqueue(func() { _ = s.conn.Notify(protocol.MethodToolProgress, n) })
	}
	ctx = session.WithProgress(ctx, func(pr session.Progress) {
		notify(&protocol.ToolProgressParams{Progress: wireProgress(pr)})
	})
	ctx = session.WithTaskState(ctx, func(st session.TaskState) {
		notify(&protocol.ToolProgressParams{Task: wireTask(st)})
	})
	return ctx, func() {
		if !sent.Load() {
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

func wireTask(t session.TaskState) *protocol.TaskState {
	return &protocol.TaskState{ID: t.ID, Status: t.Status, Message: t.Message}
}
