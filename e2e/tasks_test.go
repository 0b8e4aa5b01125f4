package e2e_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// taskPeer is a Streamable HTTP MCP server written out by hand that offers
// the tasks extension (io.modelcontextprotocol/tasks, SEP-2663): its tool
// "build" answers a tools/call that declares the extension with a task,
// which tasks/get reports working (with a message per poll) for `polls`
// polls and then completed with the tool's result. No npm server offers
// the 2026-07-28 tasks extension (server-everything has the 2025-11-25
// experimental tasks, a different protocol), so the test brings its own.
type taskPeer struct {
	url       string
	mu        sync.Mutex
	polls     int
	gets      int
	cancelled []string
	config    map[string]any // more fields of the server's definition
}

func newTaskPeer(t *testing.T, polls int) *taskPeer {
	t.Helper()
	p := &taskPeer{polls: polls}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TaskID string         `json:"taskId"`
				Meta   map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": p.answer(req.Method, req.Params.TaskID, req.Params.Meta)})
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

func (p *taskPeer) answer(method, taskID string, meta map[string]any) any {
	p.mu.Lock()
	defer p.mu.Unlock()
	task := func(status, msg string) map[string]any {
		return map[string]any{"taskId": "build-42", "status": status, "statusMessage": msg,
			"createdAt": "2026-11-23T10:00:00Z", "lastUpdatedAt": "2026-11-23T10:00:00Z", "ttlMs": 600000, "pollIntervalMs": 200}
	}
	switch method {
	case "initialize":
		return map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "task-peer", "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	case "tools/list":
		return map[string]any{"tools": []any{map[string]any{"name": "build", "description": "Builds slowly, as a task.", "inputSchema": map[string]any{"type": "object"}}}}
	case "tools/call":
		caps, _ := meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any)
		exts, _ := caps["extensions"].(map[string]any)
		if _, ok := exts["io.modelcontextprotocol/tasks"]; !ok {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "built without a task"}}}
		}
		t := task("working", "queued")
		t["resultType"] = "task"
		return t
	case "tasks/get":
		p.gets++
		t := task("working", "compiling step "+string(rune('0'+min(p.gets, 9))))
		if p.gets > p.polls {
			t = task("completed", "built")
			t["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "build ok: 42 files"}}}
		}
		t["resultType"] = "complete"
		return t
	case "tasks/cancel":
		p.cancelled = append(p.cancelled, taskID)
		return map[string]any{"resultType": "complete"}
	}
	return map[string]any{}
}

// startTaskHost runs host serve with the task peer as "tasks".
func startTaskHost(t *testing.T, p *taskPeer, script []map[string]any) *servedHost {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	def := map[string]any{"transport": "http", "url": p.url}
	for k, v := range p.config {
		def[k] = v
	}
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"tasks": def}}})
	scriptFile := filepath.Join(dir, "script.json")
	writeJSONFile(t, scriptFile, script)
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "HOME=" + dir},
		"--script", scriptFile, "--permissions", filepath.Join(dir, "permissions.json"), "--allow", "tasks/*")
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-tasks"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "tasks ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "tasks"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	return h
}

// TestTaskToolCallRun: a run's call that the server turns into a task is
// followed to its end: agent.event task events (working with each new
// message, then completed) between the call's tool_call and its
// tool_result, which carries the task's result (issue 13, tasks).
func TestTaskToolCallRun(t *testing.T) {
	p := newTaskPeer(t, 3)
	build := adapter.PublicName("tasks", "build")
	h := startTaskHost(t, p, []map[string]any{
		callStep(map[string]any{"id": "call_build", "name": build, "args": map[string]any{}}),
		{"when_result_contains": "build ok: 42 files", "text": "The build finished."},
		{"text": "The build result did not reach the model."},
	})
	ctx := ctxT(t, time.Minute)
	r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "build it"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the run to end", func() bool { _, ok := h.ui.finalRun(r.RunID); return ok })
	st, _ := h.ui.finalRun(r.RunID)
	if st.Text != "The build finished." {
		t.Errorf("run ended %+v", st)
	}
	var states, order []string
	for _, e := range h.ui.runEvents(r.RunID) {
		order = append(order, e.Type)
		if e.Type != protocol.EventTask {
			continue
		}
		if e.Task == nil || e.Call == nil || e.Call.ID != "call_build" || e.Call.Server != "tasks" || e.Call.Tool != "build" || e.Task.ID != "build-42" {
			t.Errorf("task event %+v %+v", e.Call, e.Task)
			continue
		}
		states = append(states, e.Task.Status+":"+e.Task.Message)
	}
	want := "working:queued,working:compiling step 1,working:compiling step 2,working:compiling step 3,completed:built"
	if got := strings.Join(states, ","); got != want {
		t.Errorf("task states = %s\nwant %s\nevents %v", got, want, order)
	}
	for _, raw := range h.wireNotes(protocol.MethodAgentEvent) {
		if strings.Contains(string(raw), `"type":"task"`) {
			t.Logf("example: %s", raw)
			break
		}
	}
}

// TestTaskToolCallDirect: a direct tool.call that becomes a task sends
// tool.progress notifications with the task's state, then answers with
// the task's result.
func TestTaskToolCallDirect(t *testing.T) {
	p := newTaskPeer(t, 1)
	h := startTaskHost(t, p, []map[string]any{{"text": "unused"}})
	ctx := ctxT(t, time.Minute)
	res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "tasks", Tool: "build"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.Content[0].Text != "build ok: 42 files" {
		t.Errorf("result: %+v", res.Result)
	}
	notes, answerID, answerAt := toolProgressLines(t, h, "build ok: 42 files")
	var states []string
	for _, n := range notes {
		if n.p.Task == nil || string(n.id) != answerID || n.line > answerAt {
			t.Errorf("tool.progress %s (answer %s at line %d)", n.raw, answerID, answerAt)
			continue
		}
		states = append(states, n.p.Task.Status)
	}
	if got := strings.Join(states, ","); got != "working,working,completed" {
		t.Errorf("task states = %s", got)
	}
	if len(notes) > 0 {
		t.Logf("example: %s", notes[0].raw)
	}
}

// TestTaskCancelledWithRun: run.cancel while the task works sends
// tasks/cancel for it.
func TestTaskCancelledWithRun(t *testing.T) {
	p := newTaskPeer(t, 1000)
	build := adapter.PublicName("tasks", "build")
	h := startTaskHost(t, p, []map[string]any{
		callStep(map[string]any{"id": "call_build", "name": build, "args": map[string]any{}}),
		{"text": "unused"},
	})
	ctx := ctxT(t, time.Minute)
	r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "build it"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the task to be polled", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.gets >= 2
	})
	if _, err := h.rt.RunCancel(ctx, &protocol.RunCancelParams{RunID: r.RunID}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the run to end", func() bool { _, ok := h.ui.finalRun(r.RunID); return ok })
	waitFor(t, 10*time.Second, "tasks/cancel", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.cancelled) == 1 && p.cancelled[0] == "build-42"
	})
	if st, _ := h.ui.finalRun(r.RunID); st.Status != protocol.RunCancelled {
		t.Errorf("run ended %+v", st)
	}
}

// TestTaskTimeoutFromConfig: a task that never ends is bounded by the
// server's task_timeout_ms, not the request timeout: the call fails saying
// so and the task is cancelled (issue 13, tasks: configurable separately).
func TestTaskTimeoutFromConfig(t *testing.T) {
	p := newTaskPeer(t, 1_000_000)
	p.config = map[string]any{"task_timeout_ms": 1500, "request_timeout_ms": 60000}
	h := startTaskHost(t, p, []map[string]any{{"text": "unused"}})
	ctx := ctxT(t, time.Minute)
	start := time.Now()
	_, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "tasks", Tool: "build"})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "task") {
		t.Fatalf("tool.call of a task that never ends: %v, want a task timeout", err)
	}
	if took > 20*time.Second {
		t.Errorf("the call took %v: the 1.5 s task timeout was not applied", took)
	}
	waitFor(t, 10*time.Second, "tasks/cancel", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.cancelled) == 1 && p.cancelled[0] == "build-42"
	})
}

// TestTaskCancelledWithToolCall: a UI withdraws its own direct tool.call
// with ui.request.cancelled naming the call's id (the same notification the
// runtime sends for its requests); the task is cancelled at the server and
// the call answers -32008 (issue 13, tasks: the tool.call cancel path).
func TestTaskCancelledWithToolCall(t *testing.T) {
	p := newTaskPeer(t, 1_000_000)
	h := startTaskHost(t, p, []map[string]any{{"text": "unused"}})
	// Written as a UI written from the doc would: the request with an id of
	// its own, then the withdrawal naming it.
	if _, err := io.WriteString(h.stdin, `{"jsonrpc":"2.0","id":900001,"method":"tool.call","params":{"server":"tasks","tool":"build"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the task to be polled", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.gets >= 2
	})
	if _, err := io.WriteString(h.stdin, `{"jsonrpc":"2.0","method":"ui.request.cancelled","params":{"id":900001,"method":"tool.call","reason":"cancelled"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "tasks/cancel", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.cancelled) == 1 && p.cancelled[0] == "build-42"
	})
	waitFor(t, 10*time.Second, "the call's answer", func() bool { return len(h.answers(t)["900001"]) > 0 })
	if codes := h.answers(t)["900001"]; codes[0] != protocol.CodeCancelled {
		t.Errorf("the withdrawn tool.call answered %v, want %d", codes, protocol.CodeCancelled)
	}
}
