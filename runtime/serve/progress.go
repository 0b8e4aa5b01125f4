package serve

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/agentrun"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// maxHeldProgress bounds the reports of one call held until its tool_call
// event goes out (the oldest are dropped, the latest kept).
const maxHeldProgress = 16

// runProgress turns the progress reports of run id's tool calls into
// agent.event progress events, and the states of the tasks servers make
// of them into agent.event task events, each after its call's tool_call
// event: the core reports tool_call on its own goroutine, while reports
// come from the sessions, so a report that arrives first is held.
type runProgress struct {
	s    *service
	id   string
	mu   sync.Mutex
	sent map[string]bool                         // tool_call event enqueued
	held map[string][]*protocol.AgentEventParams // reports waiting for it
}

func (s *service) runProgress(id string) *runProgress {
	return &runProgress{s: s, id: id, sent: map[string]bool{}, held: map[string][]*protocol.AgentEventParams{}}
}

// report is the run's [agentrun.RunRequest.OnProgress].
func (r *runProgress) report(tp agentrun.ToolProgress) {
	p := &protocol.AgentEventParams{
		RunID: r.id, Type: protocol.EventProgress, Step: tp.Step,
		Call: &protocol.ToolCallInfo{ID: tp.CallID, PublicName: tp.PublicName, Server: tp.Server, Tool: tp.Tool},
	}
	if tp.Task != nil {
		p.Type, p.Task = protocol.EventTask, wireTask(*tp.Task)
	} else {
		p.Progress = wireProgress(tp.Progress)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.sent[tp.CallID] {
		q := append(r.held[tp.CallID], p)
		if len(q) > maxHeldProgress {
			q = q[len(q)-maxHeldProgress:]
		}
		r.held[tp.CallID] = q
		return
	}
	r.s.enqueue(func() { r.s.ui.AgentEvent(context.Background(), p) })
}

// after is called once the run's event e has been enqueued (or dropped):
// after a tool_call event, the call's held reports follow it.
func (r *runProgress) after(e core.Event) {
	if e.Type != core.EventToolCall || e.Call == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent[e.Call.ID] = true
	for _, p := range r.held[e.Call.ID] {
		r.s.enqueue(func() { r.s.ui.AgentEvent(context.Background(), p) })
	}
	delete(r.held, e.Call.ID)
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
	return &protocol.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message, Coalesced: p.Dropped}
}

func wireTask(t session.TaskState) *protocol.TaskState {
	return &protocol.TaskState{ID: t.ID, Status: t.Status, Message: t.Message}
}
