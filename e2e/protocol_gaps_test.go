package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// TestProtocolAllowWithoutConfirm: `host serve --allow RULE` lets the
// matching calls run for a UI that did not declare confirm (issue 13 item
// 4); other calls are still denied, never asked.
func TestProtocolAllowWithoutConfirm(t *testing.T) {
	echo := adapter.PublicName("everything", "echo")
	sum := adapter.PublicName("everything", "get-sum")
	g := startGaps(t, protocol.UICapabilities{}, []map[string]any{
		callStep(call(echo, map[string]any{"message": "allowed"})),
		{"text": "echoed"},
		callStep(call(sum, map[string]any{"a": 1, "b": 2})),
		{"text": "summed"},
	}, "--allow", "everything/echo")
	id, st := g.runToEnd(t, "echo")
	if st.Status != protocol.RunCompleted || st.Text != "echoed" {
		t.Fatalf("run: %+v", st)
	}
	var ok bool
	for _, e := range g.ui.runEvents(id) {
		if e.Type == protocol.EventToolResult && e.Result != nil && !e.Result.IsError && strings.Contains(e.Result.Content[0].Text, "allowed") {
			ok = true
		}
	}
	if !ok {
		t.Errorf("the allowed call did not run: %+v", g.ui.runEvents(id))
	}
	id, _ = g.runToEnd(t, "sum")
	for _, e := range g.ui.runEvents(id) {
		if e.Type == protocol.EventToolResult && (e.Result == nil || !e.Result.IsError) {
			t.Errorf("a call no rule allows ran without confirm: %+v", e)
		}
	}
	// tool.call follows the same rules.
	ctx := ctxT(t, 30*time.Second)
	res, err := g.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "echo", Arguments: []byte(`{"message":"direct"}`)})
	if err != nil || res.DecidedBy != "allow rule" {
		t.Errorf("tool.call of an allowed tool: %+v %v", res, err)
	}
	_, err = g.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "get-sum", Arguments: []byte(`{"a":1,"b":2}`)})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeDenied {
		t.Errorf("tool.call of a tool no rule allows: %v", err)
	}
	g.ui.mu.Lock()
	n := len(g.ui.confirms)
	g.ui.mu.Unlock()
	if n != 0 {
		t.Errorf("a UI without confirm got %d confirm requests", n)
	}
}

// TestProtocolErrorAnswers: missing or mistyped params are -32602 with a
// sentence that names the field and no Go internals, and every error
// answer carries data with its kind (and the server, field, … it is about)
// (issue 13 item 6).
func TestProtocolErrorAnswers(t *testing.T) {
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, nil)
	raw := func(line string) map[string]any {
		t.Helper()
		g.out.mu.Lock()
		before := g.out.w.(*bytes.Buffer).Len()
		g.out.mu.Unlock()
		if _, err := io.WriteString(g.stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		waitFor(t, 10*time.Second, "an answer to "+line, func() bool {
			g.out.mu.Lock()
			defer g.out.mu.Unlock()
			for _, l := range bytes.Split(g.out.w.(*bytes.Buffer).Bytes()[before:], []byte("\n")) {
				var m map[string]any
				if json.Unmarshal(l, &m) == nil && m["error"] != nil {
					got = m["error"].(map[string]any)
					return true
				}
			}
			return false
		})
		return got
	}
	internals := regexp.MustCompile(`jsonrpc2|wireDecode|Go struct|Go value|unmarshal`)
	for _, c := range []struct {
		line  string
		code  float64
		kind  string
		field string
	}{
		{`{"jsonrpc":"2.0","id":"a","method":"mcp.get"}`, protocol.CodeInvalidParams, "invalid_params", "server"},
		{`{"jsonrpc":"2.0","id":"b","method":"mcp.reconnect","params":{}}`, protocol.CodeInvalidParams, "invalid_params", "server"},
		{`{"jsonrpc":"2.0","id":"c","method":"mcp.get","params":{"id":7}}`, protocol.CodeInvalidParams, "invalid_params", "id"},
		{`{"jsonrpc":"2.0","id":"d","method":"tool.call","params":{"server":"everything"}}`, protocol.CodeInvalidParams, "invalid_params", "tool"},
		{`{"jsonrpc":"2.0","id":"e","method":"run.cancel","params":{}}`, protocol.CodeInvalidParams, "invalid_params", "run_id"},
		{`{"jsonrpc":"2.0","id":"f","method":"tools.list","params":"x"}`, protocol.CodeInvalidParams, "invalid_params", ""},
		{`{"jsonrpc":"2.0","id":"g","method":7}`, protocol.CodeInvalidRequest, "invalid_request", ""},
		{`{"jsonrpc":"2.0","id":"h","method":"mcp.get","params":{"id":"nope"}}`, protocol.CodeUnknownServer, "unknown_server", ""},
		{`{"jsonrpc":"2.0","id":"i","method":"no.such"}`, protocol.CodeMethodNotFound, "method_not_found", ""},
		// A field the runtime does not know is not read as absent.
		{`{"jsonrpc":"2.0","id":"k","method":"tool.call","params":{"server":"everything","tool":"echo","args":{"message":"x"}}}`, protocol.CodeInvalidParams, "invalid_params", "args"},
		{`{"jsonrpc":"2.0","id":"l","method":"mcp.list","params":{"verbose":true}}`, protocol.CodeInvalidParams, "invalid_params", "verbose"},
		{`{"jsonrpc":"2.0","id":"m","method":"run.start","params":{"prompt":"hi","conversation_id":"c1"}}`, protocol.CodeInvalidParams, "invalid_params", "conversation_id"},
	} {
		e := raw(c.line)
		msg, _ := e["message"].(string)
		data, _ := e["data"].(map[string]any)
		if e["code"] != c.code || data["kind"] != c.kind || (c.field != "" && data["field"] != c.field) {
			t.Errorf("%s: got %v, want code %v kind %s field %q", c.line, e, c.code, c.kind, c.field)
		}
		if internals.MatchString(msg) || strings.Count(msg, ": ") > 2 {
			t.Errorf("%s: message %q has Go internals or a long chain", c.line, msg)
		}
		t.Logf("%s -> %v", c.line, e)
	}
	if e := raw(`{"jsonrpc":"2.0","id":"n","method":"tool.call","params":{"server":"everything","tool":"echo","args":{}}}`); !strings.Contains(fmt.Sprint(e["message"]), `did you mean "arguments"?`) {
		t.Errorf("tool.call with args: %v; want a pointer to arguments", e)
	}
	if e := raw(`{"jsonrpc":"2.0","id":"j","method":"mcp.get","params":{"id":"nope"}}`); e["data"].(map[string]any)["server"] != "nope" {
		t.Errorf("unknown server error does not name it: %v", e)
	}
}

// TestProtocolTerminalEvent: every run ends with exactly one final
// agent.event, its last, that a UI can close its bubble on: also a run a
// plain deny ended and a cancelled one (issue 13 item 3).
func TestProtocolTerminalEvent(t *testing.T) {
	echo := adapter.PublicName("everything", "echo")
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, []map[string]any{
		// The scripted model's steps are one queue: a plain deny ends the
		// first run before it takes another step.
		callStep(call(echo, map[string]any{"message": "no"})),
		callStep(call(echo, map[string]any{"message": "wait"})),
		{"text": "never reached"},
	})
	check := func(id, status string) protocol.AgentEventParams {
		t.Helper()
		evs := g.ui.runEvents(id)
		var finals int
		for _, e := range evs {
			if e.Type == protocol.EventFinal {
				finals++
			}
		}
		if finals != 1 || len(evs) == 0 || evs[len(evs)-1].Type != protocol.EventFinal {
			t.Fatalf("run %s: %d final events, want exactly one as the last: %+v", id, finals, evs)
		}
		last := evs[len(evs)-1]
		if last.Status != status {
			t.Errorf("final event status %q, want %q: %+v", last.Status, status, last)
		}
		return last
	}
	g.ui.setAnswer(answerWith(protocol.AnswerDeny))
	id, st := g.runToEnd(t, "deny me")
	if st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	if f := check(id, protocol.RunCompleted); !strings.Contains(f.Reason, "denied") {
		t.Errorf("final event after a deny does not say why the turn ended: %+v", f)
	}

	asked := make(chan struct{}, 1)
	g.ui.setAnswer(func(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ctx := ctxT(t, 30*time.Second)
	r, err := g.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "cancel me"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatalf("no confirm came: %+v", g.ui.runEvents(r.RunID))
	}
	if _, err := g.rt.RunCancel(ctx, &protocol.RunCancelParams{RunID: r.RunID}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the cancelled run to end", func() bool { _, ok := g.ui.finalRun(r.RunID); return ok })
	check(r.RunID, protocol.RunCancelled)
}

// TestProtocolConfirmNamesItsCall: with two tool calls in one step, each
// ui.confirm.request names its run, call and origin, and comes after that
// call's permission event (phase asked) on the wire (issue 13 item 1).
func TestProtocolConfirmNamesItsCall(t *testing.T) {
	echo := adapter.PublicName("everything", "echo")
	sum := adapter.PublicName("everything", "get-sum")
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, []map[string]any{
		callStep(map[string]any{"id": "call_a", "name": echo, "args": map[string]any{"message": "a"}},
			map[string]any{"id": "call_b", "name": sum, "args": map[string]any{"a": 1, "b": 2}}),
		{"text": "both done"},
	})
	g.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	id, st := g.runToEnd(t, "two calls")
	if st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	// The order on the wire, as the runtime wrote it.
	g.out.mu.Lock()
	data := append([]byte(nil), g.out.w.(*bytes.Buffer).Bytes()...)
	g.out.mu.Unlock()
	askedAt := map[string]int{}
	var confirms []protocol.ConfirmParams
	for i, line := range bytes.Split(data, []byte("\n")) {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m.Method {
		case protocol.MethodAgentEvent:
			var e protocol.AgentEventParams
			json.Unmarshal(m.Params, &e)
			if e.Type == protocol.EventPermission && e.Phase == "asked" {
				askedAt[e.Call.ID] = i
			}
		case protocol.MethodUIConfirm:
			var c protocol.ConfirmParams
			json.Unmarshal(m.Params, &c)
			if c.CallID == "" {
				t.Errorf("confirm without call_id: %s", line)
			} else if at, ok := askedAt[c.CallID]; !ok || at > i {
				t.Errorf("confirm for %s (line %d) before its asked event (line %d, seen %v)", c.CallID, i, at, ok)
			}
			confirms = append(confirms, c)
		}
	}
	want := map[string]string{"call_a": "echo", "call_b": "get-sum"}
	if len(confirms) != 2 {
		t.Fatalf("%d confirms, want 2", len(confirms))
	}
	for _, c := range confirms {
		if c.RunID != id || c.Tool == nil || c.Tool.Server != "everything" || c.Tool.Tool != want[c.CallID] || c.Step != 1 {
			t.Errorf("confirm does not name its run, call and origin: %+v %+v", c, c.Tool)
		}
	}
}

// TestProtocolRequestCancelled: a confirm the runtime stops waiting for
// (its timeout, its run cancelled) is withdrawn with ui.request.cancelled
// naming the request and why; the UI's late answer is ignored; a
// timed-out confirm denies with a reason the model sees, decided_by
// timeout, and the turn goes on (issue 13 item 2).
func TestProtocolRequestCancelled(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	echo := adapter.PublicName("everything", "echo")
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, []map[string]any{
		callStep(call(echo, map[string]any{"message": "late"})),
		{"text": "went on after the timeout"},
		callStep(call(echo, map[string]any{"message": "cancel"})),
		{"text": "never"},
	}, "--confirm-timeout", "1s")
	var ids []int64
	var mu sync.Mutex
	g.ui.setAnswer(func(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		<-ctx.Done() // the withdrawal cancels the handler
		time.Sleep(200 * time.Millisecond)
		return &protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}, nil // late: ignored
	})
	id, st := g.runToEnd(t, "time out")
	if st.Status != protocol.RunCompleted || st.Text != "went on after the timeout" {
		t.Fatalf("run: %+v", st)
	}
	var decided protocol.AgentEventParams
	for _, e := range g.ui.runEvents(id) {
		if e.Type == protocol.EventPermission && e.Phase == "decided" {
			decided = e
		}
		if e.Type == protocol.EventToolResult && e.Result != nil && !e.Result.IsError {
			t.Errorf("the late answer ran the call: %+v", e)
		}
	}
	if decided.Decision != "deny_with_reason" || decided.DecidedBy != "timeout" || !strings.Contains(decided.Reason, "no answer") {
		t.Errorf("decision after a timeout: %+v", decided)
	}
	cancelled := func() []protocol.RequestCancelledParams {
		var out []protocol.RequestCancelledParams
		for _, raw := range g.wireNotes(protocol.MethodUIRequestCancelled) {
			var p protocol.RequestCancelledParams
			json.Unmarshal(raw, &p)
			out = append(out, p)
		}
		return out
	}
	waitFor(t, 5*time.Second, "ui.request.cancelled for the timed-out confirm", func() bool { return len(cancelled()) == 1 })
	if c := cancelled()[0]; c.Method != protocol.MethodUIConfirm || c.Reason != "timeout" || c.ID == 0 {
		t.Errorf("withdrawal of the timed-out confirm: %+v", c)
	}
	mu.Lock()
	ids = append(ids, cancelled()[0].ID)
	mu.Unlock()

	ctx := ctxT(t, 30*time.Second)
	r, err := g.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "cancel"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the second confirm", func() bool {
		g.ui.mu.Lock()
		defer g.ui.mu.Unlock()
		return len(g.ui.confirms) == 2
	})
	if _, err := g.rt.RunCancel(ctx, &protocol.RunCancelParams{RunID: r.RunID}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "ui.request.cancelled for the cancelled run's confirm", func() bool { return len(cancelled()) == 2 })
	if c := cancelled()[1]; c.Method != protocol.MethodUIConfirm || c.Reason != "cancelled" || c.ID == ids[0] {
		t.Errorf("withdrawal of the cancelled run's confirm: %+v", c)
	}
	// Still serving after the late answers.
	time.Sleep(300 * time.Millisecond)
	if _, err := g.rt.MCPList(ctx, &protocol.Empty{}); err != nil {
		t.Fatal(err)
	}
}

// TestProtocolPermissionEvents: permission "asked" is sent only when the
// user is asked, "decided" says decided_by, and a tool_call whose name is
// in no catalog is marked unknown and still names the tool it most likely
// meant (issue 13 item 7).
func TestProtocolPermissionEvents(t *testing.T) {
	echo := adapter.PublicName("everything", "echo")
	sum := adapter.PublicName("everything", "get-sum")
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, []map[string]any{
		callStep(map[string]any{"id": "by_rule", "name": echo, "args": map[string]any{"message": "rule"}},
			map[string]any{"id": "by_user", "name": sum, "args": map[string]any{"a": 1, "b": 2}},
			map[string]any{"id": "raw_name", "name": "get-sum", "args": map[string]any{"a": 1, "b": 2}},
			map[string]any{"id": "nonsense", "name": "no_such_tool", "args": map[string]any{}}),
		{"text": "done"},
	}, "--allow", "everything/echo")
	g.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	id, st := g.runToEnd(t, "mixed")
	if st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	asked := map[string]bool{}
	decidedBy := map[string]string{}
	calls := map[string]*protocol.ToolCallInfo{}
	for _, e := range g.ui.runEvents(id) {
		switch {
		case e.Type == protocol.EventPermission && e.Phase == "asked":
			asked[e.Call.ID] = true
		case e.Type == protocol.EventPermission && e.Phase == "decided":
			decidedBy[e.Call.ID] = e.DecidedBy
		case e.Type == protocol.EventToolCall:
			calls[e.Call.ID] = e.Call
		}
	}
	if asked["by_rule"] || !asked["by_user"] {
		t.Errorf("asked events: %v, want by_user only", asked)
	}
	if decidedBy["by_rule"] != "allow rule" || decidedBy["by_user"] != "user" {
		t.Errorf("decided_by: %v", decidedBy)
	}
	if c := calls["raw_name"]; c == nil || !c.Unknown || c.Server != "everything" || c.Tool != "get-sum" {
		t.Errorf("tool_call for a server's own tool name: %+v", c)
	}
	if c := calls["nonsense"]; c == nil || !c.Unknown || c.Server != "" {
		t.Errorf("tool_call for a name nothing offers: %+v", c)
	}
}

// TestProtocolLocalToolConfirmNamesItsRun: a confirm asked by a local tool
// of a run (a resource listing reaches a server) names the run.
func TestProtocolLocalToolConfirmNamesItsRun(t *testing.T) {
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, []map[string]any{
		callStep(call("mcp_resources_list", map[string]any{})),
		{"text": "listed"},
	})
	g.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	id, st := g.runToEnd(t, "list resources")
	if st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	g.ui.mu.Lock()
	defer g.ui.mu.Unlock()
	if len(g.ui.confirms) != 1 || g.ui.confirms[0].RunID != id {
		t.Errorf("confirms: %+v, want one naming run %s", g.ui.confirms, id)
	}
}

// TestProtocolToolCallWaitsReady: a tool.call right after initialize, to a
// server still connecting, waits for it and runs; with a negative
// wait_ready_ms it is -32003 at once.
func TestProtocolToolCallWaitsReady(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"slow": map[string]any{"transport": "stdio", "command": "sh", "args": []string{"-c", "sleep 2; exec " + shellQuote(buildHost(t)) + " demo-stdio-server"}},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS="}, "--permissions", filepath.Join(dir, "permissions.json"))
	h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	ctx := ctxT(t, 60*time.Second)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"text":"one two"}`)
	if _, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "slow", Tool: "word_count", Arguments: args, WaitReadyMS: -1}); protocol.DataOf(err).Kind != "not_ready" {
		t.Errorf("a call while the server connects, wait_ready_ms -1: %v; want not ready", err)
	}
	res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "slow", Tool: "word_count", Arguments: args})
	if err != nil || len(res.Result.Content) == 0 || res.Result.Content[0].Text != "2 words" {
		t.Fatalf("a call without wait_ready_ms, right after initialize: %v %+v", err, res)
	}
}
