package e2e_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// The long-running tool of server-everything reports one progress per
// step when the call carries a progressToken (issue 13, progress).
const longRunning = "trigger-long-running-operation"

// progressEvents returns the run's progress events.
func progressEvents(evs []protocol.AgentEventParams) []protocol.AgentEventParams {
	var out []protocol.AgentEventParams
	for _, e := range evs {
		if e.Type == protocol.EventProgress {
			out = append(out, e)
		}
	}
	return out
}

// TestProgressRunEverything: a run's call of the long-running tool sends
// agent.event progress events for that call, 1/4 … 4/4, after its
// tool_call and before its tool_result.
func TestProgressRunEverything(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	name := adapter.PublicName("everything", longRunning)
	g := startGaps(t, protocol.UICapabilities{}, []map[string]any{
		callStep(map[string]any{"id": "call_long", "name": name, "args": map[string]any{"duration": 2, "steps": 4}}),
		{"text": "done"},
	}, "--allow", "everything/"+longRunning)
	id, st := g.runToEnd(t, "run the long operation")
	if st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	evs := g.ui.runEvents(id)
	var order []string
	for _, e := range evs {
		order = append(order, e.Type)
	}
	prog := progressEvents(evs)
	if len(prog) != 4 {
		t.Fatalf("got %d progress events, want 4 (one per step): %v", len(prog), order)
	}
	for i, e := range prog {
		if e.Call == nil || e.Call.ID != "call_long" || e.Call.Server != "everything" || e.Call.Tool != longRunning || e.Call.PublicName != name {
			t.Errorf("progress event %d names call %+v", i, e.Call)
		}
		if e.Progress == nil || e.Progress.Progress != float64(i+1) || e.Progress.Total != 4 || e.Step != 1 {
			t.Errorf("progress event %d = %+v (step %d), want %d/4 in step 1", i, e.Progress, e.Step, i+1)
		}
	}
	first, last := -1, -1
	for i, typ := range order {
		switch typ {
		case protocol.EventToolCall:
			first = i
		case protocol.EventToolResult:
			last = i
		case protocol.EventProgress:
			if first < 0 || last >= 0 {
				t.Errorf("progress event outside its call's tool_call … tool_result: %v", order)
			}
		}
	}
	for _, raw := range g.wireNotes(protocol.MethodAgentEvent) {
		if bytes.Contains(raw, []byte(`"type":"progress"`)) {
			t.Logf("example: %s", raw)
			break
		}
	}
}

// TestProgressToolCallEverything: a direct tool.call of the long-running
// tool sends tool.progress notifications naming the request, all before
// its answer.
func TestProgressToolCallEverything(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	g := startGaps(t, protocol.UICapabilities{}, nil, "--allow", "everything/"+longRunning)
	ctx := ctxT(t, time.Minute)
	res, err := g.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: longRunning, Arguments: []byte(`{"duration":2,"steps":4}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Result.Content[0].Text, "completed") {
		t.Fatalf("result: %+v", res.Result)
	}
	notes, answerID, answerAt := toolProgressLines(t, g.servedHost, "Long running operation completed")
	if len(notes) != 4 {
		t.Fatalf("got %d tool.progress notifications, want 4", len(notes))
	}
	for i, n := range notes {
		if n.line > answerAt {
			t.Errorf("tool.progress %d written after the answer", i)
		}
		if string(n.id) != answerID || n.p.Server != "everything" || n.p.Tool != longRunning {
			t.Errorf("tool.progress %d = %s, want request_id %s", i, n.raw, answerID)
		}
		if n.p.Progress == nil || n.p.Progress.Progress != float64(i+1) || n.p.Progress.Total != 4 {
			t.Errorf("tool.progress %d = %+v", i, n.p.Progress)
		}
	}
	t.Logf("example: %s", notes[0].raw)
}

// progressNote is one tool.progress notification as written.
type progressNote struct {
	line int
	raw  json.RawMessage
	id   json.RawMessage
	p    protocol.ToolProgressParams
}

// toolProgressLines returns the tool.progress notifications the runtime
// wrote, the id of the answer whose text contains marker, and that
// answer's line number.
func toolProgressLines(t *testing.T, h *servedHost, marker string) ([]progressNote, string, int) {
	t.Helper()
	h.out.mu.Lock()
	data := append([]byte(nil), h.out.w.(*bytes.Buffer).Bytes()...)
	h.out.mu.Unlock()
	var notes []progressNote
	answerID, answerAt := "", -1
	for i, line := range bytes.Split(data, []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if m.Method == protocol.MethodToolProgress {
			n := progressNote{line: i, raw: m.Params}
			var ids struct {
				RequestID json.RawMessage `json:"request_id"`
			}
			if err := json.Unmarshal(m.Params, &n.p); err != nil {
				t.Fatalf("tool.progress params: %v: %s", err, m.Params)
			}
			_ = json.Unmarshal(m.Params, &ids)
			n.id = ids.RequestID
			notes = append(notes, n)
		}
		if m.Result != nil && marker != "" && bytes.Contains(m.Result, []byte(marker)) {
			answerID, answerAt = string(m.ID), i
		}
	}
	return notes, answerID, answerAt
}

// TestProgressTwoCallsOneStep: two calls of the long-running tool in one
// step each get their own progress events (the runtime ties each server
// call to the model's call id).
func TestProgressTwoCallsOneStep(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	name := adapter.PublicName("everything", longRunning)
	g := startGaps(t, protocol.UICapabilities{}, []map[string]any{
		callStep(
			map[string]any{"id": "call_two", "name": name, "args": map[string]any{"duration": 1, "steps": 2}},
			map[string]any{"id": "call_three", "name": name, "args": map[string]any{"duration": 1.5, "steps": 3}},
		),
		{"text": "done"},
	}, "--allow", "everything/"+longRunning)
	id, st := g.runToEnd(t, "two long operations")
	if st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	totals := map[string][]float64{}
	for _, e := range progressEvents(g.ui.runEvents(id)) {
		if e.Call == nil || e.Progress == nil {
			t.Fatalf("progress event without call or progress: %+v", e)
		}
		want := map[string]float64{"call_two": 2, "call_three": 3}[e.Call.ID]
		if e.Progress.Total != want {
			t.Errorf("call %s got a report of total %v, want %v", e.Call.ID, e.Progress.Total, want)
		}
		totals[e.Call.ID] = append(totals[e.Call.ID], e.Progress.Progress)
	}
	if len(totals["call_two"]) != 2 || len(totals["call_three"]) != 3 {
		t.Errorf("reports per call = %v, want 2 and 3", totals)
	}
}
