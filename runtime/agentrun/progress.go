package agentrun

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// ToolProgress is a server's progress report about one MCP tool call of a
// run, as [RunRequest.OnProgress] receives it.
type ToolProgress struct {
	// CallID and Step name the model's call the report is about.
	CallID string
	Step   int
	// PublicName is the name the model called the tool by; Server and
	// Tool are the call's origin (Tool is the server's name).
	PublicName, Server, Tool string
	// Progress is the report, checked, stripped and rate-limited by the
	// session (see session.WithProgress).
	Progress session.Progress
	// Task, when set, makes this a report of the state of the task the
	// server made of the call (the tasks extension; see
	// session.WithTaskState) instead of a progress report.
	Task *session.TaskState
}

// progressRouter ties the MCP calls of one run to the model's call ids.
// The core does not pass a call's id to the tool, so the run's permission
// hook records each allowed call of an MCP tool (server, tool and the
// exact argument bytes the tool receives), and the call, when it reaches
// the server, takes the oldest matching record. Two calls alike in all
// three are interchangeable: their reports may be told apart only in
// order.
type progressRouter struct {
	fn    func(ToolProgress)
	mu    sync.Mutex
	calls map[string][]ToolProgress // key → allowed calls not yet made
}

// trackProgress arranges for fn to receive the progress reports of the
// run's MCP tool calls: it returns the run's context and its permission
// hook wrapped to record the allowed calls. A nil fn changes nothing.
func trackProgress(ctx context.Context, fn func(ToolProgress), hook core.PermissionHook) (context.Context, core.PermissionHook) {
	if fn == nil || hook == nil {
		return ctx, hook
	}
	r := &progressRouter{fn: fn, calls: map[string][]ToolProgress{}}
	wrapped := func(ctx context.Context, req core.PermissionRequest) (core.PermissionDecision, error) {
		dec, err := hook(ctx, req)
		if t, ok := req.Tool.(*adapter.Tool); ok && err == nil && dec.Kind == core.DecisionAllow {
			k := progressKey(t.Server(), t.ToolName(), req.Call.Args)
			r.mu.Lock()
			r.calls[k] = append(r.calls[k], ToolProgress{CallID: req.Call.ID, Step: req.Step, PublicName: req.Call.Name, Server: t.Server(), Tool: t.ToolName()})
			r.mu.Unlock()
		}
		return dec, err
	}
	return runtime.WithToolCallHook(ctx, r.callContext), wrapped
}

// callContext returns the context for a call of server's tool with args
// made in the run (a [runtime.ToolCallHook]): one that listens for the
// server's progress when the call is one the run's hook allowed.
func (r *progressRouter) callContext(ctx context.Context, server, tool string, args any) context.Context {
	raw, ok := args.(json.RawMessage)
	if !ok {
		return ctx
	}
	k := progressKey(server, tool, raw)
	r.mu.Lock()
	q := r.calls[k]
	if len(q) == 0 {
		r.mu.Unlock()
		return ctx
	}
	c := q[0]
	if len(q) == 1 {
		delete(r.calls, k)
	} else {
		r.calls[k] = q[1:]
	}
	r.mu.Unlock()
	ctx = session.WithTaskState(ctx, func(st session.TaskState) {
		c := c
		c.Task = &st
		r.fn(c)
	})
	return session.WithProgress(ctx, func(p session.Progress) {
		c := c
		c.Progress = p
		r.fn(c)
	})
}

func progressKey(server, tool string, args json.RawMessage) string {
	return server + "\x00" + tool + "\x00" + string(args)
}
