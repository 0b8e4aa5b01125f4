package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// taskServer is a Streamable HTTP MCP server, written out by hand, that
// offers the tasks extension (SEP-2663): tools/call of "slow" answers
// with a task when the request declares the extension, tasks/get reports
// it working for `polls` polls and then completed (or whatever finish
// says), and tasks/cancel is recorded.
type taskServer struct {
	url string
	mu  sync.Mutex
	// polls is how many tasks/get answer working before the end.
	polls     int
	gets      int
	cancelled []string
	declared  bool // the last tools/call declared the extension
	// v2026 makes it a 2026-07-28 server (server/discover, no initialize).
	v2026 bool
	// sawVersion is the protocolVersion _meta of the last tools/call.
	sawVersion any
	// forgetAt, when set, makes the server keep sessions and forget the
	// current one at that tasks/get (it answers 404, as after a restart).
	forgetAt int
	session  int  // the current session's number
	forgot   bool // the current session is forgotten
	inits    int  // initialize requests seen
	// progressSSE answers tools/call on an event stream that first reports
	// progress for the call's token.
	progressSSE bool
	// outage fails that many tasks/get before answering again, as a server
	// restarting would: 503s and dropped connections, alternately.
	outage int
	// finish is the task's final state (status and the fields of it).
	finish map[string]any
}

func newTaskServer(t *testing.T, polls int) *taskServer {
	t.Helper()
	ts := &taskServer{polls: polls, finish: map[string]any{"status": "completed", "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "slow done"}}}}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name   string         `json:"name"`
				TaskID string         `json:"taskId"`
				Meta   map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if ts.gone(r.Header.Get("Mcp-Session-Id"), req.Method) {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if err := json.Unmarshal(body, &req); err != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		ts.mu.Lock()
		down := req.Method == "tasks/get" && ts.outage > 0
		if down {
			ts.outage--
		}
		drop := ts.outage%2 == 1
		ts.mu.Unlock()
		if down {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil && drop {
				conn.Close()
				return
			} else if err == nil {
				conn.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
				conn.Close()
				return
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		result := ts.answer(req.Method, req.Params.Name, req.Params.TaskID, req.Params.Meta)
		ts.mu.Lock()
		if ts.forgetAt > 0 && req.Method == "initialize" {
			ts.session++
			ts.forgot = false
			w.Header().Set("Mcp-Session-Id", "s"+string(rune('0'+ts.session)))
		}
		ts.mu.Unlock()
		answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		if ts.progressSSE && req.Method == "tools/call" {
			note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
				"params": map[string]any{"progressToken": req.Params.Meta["progressToken"], "progress": 1, "total": 2, "message": "queued \x1b[2J"}})
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\nevent: message\ndata: %s\n\n", note, answer)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(answer, '\n'))
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ts.url = srv.URL
	return ts
}

// gone reports whether a request of session id meets a forgotten session.
func (ts *taskServer) gone(id, method string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.forgetAt > 0 && method != "initialize" && ts.forgot && id == "s"+string(rune('0'+ts.session))
}

func (ts *taskServer) answer(method, tool, taskID string, meta map[string]any) any {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	task := func(status string) map[string]any {
		return map[string]any{"taskId": "task-1", "status": status, "statusMessage": "step \x1b[2J" + status,
			"createdAt": "2026-11-23T10:00:00Z", "lastUpdatedAt": "2026-11-23T10:00:00Z", "ttlMs": 60000, "pollIntervalMs": 10}
	}
	switch method {
	case "server/discover":
		if !ts.v2026 {
			return map[string]any{}
		}
		return map[string]any{"resultType": "complete", "supportedVersions": []string{"2026-07-28"}, "serverInfo": map[string]any{"name": "tasks", "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{}, "extensions": map[string]any{session.TasksExtension: map[string]any{}}}}
	case "initialize":
		ts.inits++
		return map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "tasks", "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{}, "extensions": map[string]any{session.TasksExtension: map[string]any{}}}}
	case "tools/list":
		return map[string]any{"tools": []any{map[string]any{"name": "slow", "inputSchema": map[string]any{"type": "object"}}}}
	case "tools/call":
		ts.sawVersion = meta["io.modelcontextprotocol/protocolVersion"]
		caps, _ := meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any)
		exts, _ := caps["extensions"].(map[string]any)
		_, ts.declared = exts[session.TasksExtension]
		if !ts.declared {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "no task"}}}
		}
		t := task("working")
		t["resultType"] = "task"
		return t
	case "tasks/get":
		ts.gets++
		if ts.gets == ts.forgetAt {
			ts.forgot = true // this answer still goes out; the next request meets a 404
		}
		t := task("working")
		if ts.gets > ts.polls {
			for k, v := range ts.finish {
				t[k] = v
			}
		}
		t["resultType"] = "complete"
		return t
	case "tasks/cancel":
		ts.cancelled = append(ts.cancelled, taskID)
		return map[string]any{"resultType": "complete"}
	}
	return map[string]any{}
}

func TestTaskFollowedToItsResult(t *testing.T) {
	ts := newTaskServer(t, 3)
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url})
	var states []session.TaskState
	ctx := session.WithTaskState(context.Background(), func(st session.TaskState) { states = append(states, st) })
	res, err := s.CallTool(ctx, "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "slow done" {
		t.Errorf("result = %q", got)
	}
	if !ts.declared {
		t.Error("the tools/call did not declare the tasks extension in its _meta")
	}
	if ts.gets != 4 {
		t.Errorf("tasks/get sent %d times, want 4", ts.gets)
	}
	if len(states) != 2 || states[0].Status != "working" || states[1].Status != "completed" || states[0].ID != "task-1" {
		t.Fatalf("states = %+v, want working then completed", states)
	}
	if strings.Contains(states[0].Message, "\x1b") || states[0].Message != "step working" {
		t.Errorf("message not stripped: %q", states[0].Message)
	}
}

func TestTaskFailedAndCancelled(t *testing.T) {
	ts := newTaskServer(t, 0)
	ts.finish = map[string]any{"status": "failed", "error": map[string]any{"code": -32603, "message": "rate limit"}}
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url})
	if _, err := s.CallTool(context.Background(), "slow", nil); err == nil || !strings.Contains(err.Error(), "failed: rate limit (code -32603)") {
		t.Errorf("failed task: %v", err)
	}
	// The caller gives up: the task is cancelled on the server.
	ts2 := newTaskServer(t, 1000)
	s2 := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts2.url})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s2.CallTool(ctx, "slow", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("abandoned task: %v", err)
	}
	ts2.mu.Lock()
	defer ts2.mu.Unlock()
	if len(ts2.cancelled) != 1 || ts2.cancelled[0] != "task-1" {
		t.Errorf("tasks/cancel = %v, want [task-1]", ts2.cancelled)
	}
	// The task timeout bounds it too.
	ts3 := newTaskServer(t, 1000)
	s3 := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts3.url, TaskTimeout: 200 * time.Millisecond})
	if _, err := s3.CallTool(context.Background(), "slow", nil); err == nil || !strings.Contains(err.Error(), "task timeout") {
		t.Errorf("timed-out task: %v", err)
	}
	// input_required is not answered: the task is cancelled.
	ts4 := newTaskServer(t, 0)
	ts4.finish = map[string]any{"status": "input_required", "inputRequests": map[string]any{}}
	s4 := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts4.url})
	if _, err := s4.CallTool(context.Background(), "slow", nil); err == nil || !strings.Contains(err.Error(), "needs input") {
		t.Errorf("input_required task: %v", err)
	}
}

// A 2026-07-28 server (server/discover, per-request _meta) gets the
// protocol version and the extension on the tools/call, and its task is
// followed the same way.
func TestTaskOn20260728(t *testing.T) {
	ts := newTaskServer(t, 1)
	ts.v2026 = true
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url})
	if v := s.Info().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the SDK negotiated %q with the hand-written server, not 2026-07-28", v)
	}
	res, err := s.CallTool(context.Background(), "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "slow done" {
		t.Errorf("result = %q", got)
	}
	if !ts.declared || ts.sawVersion != "2026-07-28" {
		t.Errorf("tools/call _meta: extension declared %v, protocol version %v", ts.declared, ts.sawVersion)
	}
}

// A server that forgets the session while a task works (a restart, a
// lost session): the session re-initializes and polling goes on with the
// same task id, which the spec keeps valid across sessions.
func TestTaskSurvivesSessionReinit(t *testing.T) {
	ts := newTaskServer(t, 4)
	ts.forgetAt = 2
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url})
	res, err := s.CallTool(context.Background(), "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "slow done" {
		t.Errorf("result = %q", got)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.inits < 2 || ts.gets != 5 {
		t.Errorf("initialize %d times, tasks/get %d times; want a re-initialization and 5 polls", ts.inits, ts.gets)
	}
}

// A tools/call that goes to a tasks server over Streamable HTTP is sent
// outside the SDK (Session.Call); progress the server reports on that
// call's event stream still reaches the caller, stripped.
func TestTaskCallProgressOverHTTP(t *testing.T) {
	ts := newTaskServer(t, 1)
	ts.progressSSE = true
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url})
	var mu sync.Mutex
	var got []session.Progress
	ctx := session.WithProgress(context.Background(), func(p session.Progress) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, p)
	})
	res, err := s.CallTool(ctx, "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(t, res); text != "slow done" {
		t.Errorf("result = %q", text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Progress != 1 || got[0].Total != 2 || strings.TrimSpace(got[0].Message) != "queued" {
		t.Fatalf("progress = %+v, want one report 1/2 \"queued\" (stripped)", got)
	}
}

// A task outlives its server being unreachable for a while (a restart, a
// network blip): failed polls are sent again within the task timeout, and
// the call ends with the task's result.
func TestTaskSurvivesAnOutage(t *testing.T) {
	ts := newTaskServer(t, 2)
	ts.outage = 4
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url})
	res, err := s.CallTool(context.Background(), "slow", nil)
	if err != nil {
		t.Fatalf("a task whose server was unreachable for 4 polls: %v", err)
	}
	if got := textOf(t, res); got != "slow done" {
		t.Errorf("result = %q", got)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.outage != 0 || len(ts.cancelled) != 0 {
		t.Errorf("outage left %d, cancelled %v: want the outage sat out and nothing cancelled", ts.outage, ts.cancelled)
	}
}
