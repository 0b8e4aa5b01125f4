package core_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mcp-host/mcp-host/core"
)

// funcTool is a tool whose Call runs fn.
type funcTool struct {
	name string
	fn   func(ctx context.Context, args json.RawMessage) (*core.Result, error)
}

func (t *funcTool) Name() string            { return t.name }
func (t *funcTool) Description() string     { return "test tool " + t.name }
func (t *funcTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (t *funcTool) Call(ctx context.Context, args json.RawMessage) (*core.Result, error) {
	return t.fn(ctx, args)
}

// echoTool returns its arguments as text and counts its calls.
type echoTool struct {
	name string
	mu   sync.Mutex
	args []string
}

func (t *echoTool) Name() string            { return t.name }
func (t *echoTool) Description() string     { return "echoes its arguments" }
func (t *echoTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (t *echoTool) Call(ctx context.Context, args json.RawMessage) (*core.Result, error) {
	t.mu.Lock()
	t.args = append(t.args, string(args))
	t.mu.Unlock()
	return core.TextResult("echo " + string(args)), nil
}

func (t *echoTool) calls() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.args...)
}

// recorder collects events; safe for the emitter goroutine and the test.
type recorder struct {
	mu     sync.Mutex
	events []core.Event
}

func (r *recorder) on(ev core.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) all() []core.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]core.Event(nil), r.events...)
}

func (r *recorder) ofType(t core.EventType) []core.Event {
	var out []core.Event
	for _, ev := range r.all() {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}

// checkEventInvariants checks what every run must satisfy: the first event is
// status running, the last is the final status, and every tool_call is
// answered by exactly one tool_result for the same ID after it.
func checkEventInvariants(t *testing.T, evs []core.Event, final core.RunStatus) {
	t.Helper()
	if len(evs) < 2 {
		t.Fatalf("got %d events, want at least 2", len(evs))
	}
	if evs[0].Type != core.EventStatus || evs[0].Status != core.StatusRunning {
		t.Errorf("first event = %+v, want status running", evs[0])
	}
	last := evs[len(evs)-1]
	if last.Type != core.EventStatus || last.Status != final {
		t.Errorf("last event = %+v, want status %s", last, final)
	}
	open := map[string]bool{}
	results := map[string]int{}
	for _, ev := range evs {
		switch ev.Type {
		case core.EventToolCall:
			if open[ev.Call.ID] {
				t.Errorf("tool_call %s reported twice", ev.Call.ID)
			}
			open[ev.Call.ID] = true
		case core.EventToolResult:
			if !open[ev.Call.ID] {
				t.Errorf("tool_result for %s without a preceding tool_call", ev.Call.ID)
			}
			results[ev.Call.ID]++
		}
	}
	for id := range open {
		if results[id] != 1 {
			t.Errorf("call %s has %d tool_result events, want 1", id, results[id])
		}
	}
}

// toolMessages returns the tool messages of msgs keyed by call ID.
func toolMessages(msgs []core.Message) map[string]core.Message {
	out := map[string]core.Message{}
	for _, m := range msgs {
		if m.Role == core.RoleTool {
			out[m.ToolCallID] = m
		}
	}
	return out
}

func userMessages(text string) []core.Message {
	return []core.Message{{Role: core.RoleSystem, Content: "be brief"}, {Role: core.RoleUser, Content: text}}
}
