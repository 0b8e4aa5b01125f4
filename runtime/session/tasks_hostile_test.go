package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// A hostile tasks server: a poll interval of 0 does not make the client
// poll in a loop, a tasks/get about another task ends the call (and
// cancels the task), and a completed task without a result is an error.
func TestTaskHostileServer(t *testing.T) {
	ts := newTaskServer(t, 1000)
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ts.mu.Lock()
	ts.finish = nil
	ts.mu.Unlock()
	// pollIntervalMs 10 (below the 100 ms floor) for one second.
	_, _ = s.CallTool(ctx, "slow", nil)
	ts.mu.Lock()
	gets := ts.gets
	ts.mu.Unlock()
	if gets > 11 {
		t.Errorf("%d tasks/get in one second: the 100 ms floor does not hold", gets)
	}

	switched := newTaskServer(t, 0)
	switched.finish = map[string]any{"taskId": "someone-else", "status": "completed", "result": map[string]any{"content": []any{}}}
	s2 := connect(t, session.Options{Transport: session.TransportHTTP, URL: switched.url})
	if _, err := s2.CallTool(context.Background(), "slow", nil); err == nil || !strings.Contains(err.Error(), "another task") {
		t.Errorf("tasks/get about another task: %v", err)
	}
	switched.mu.Lock()
	if len(switched.cancelled) != 1 {
		t.Errorf("tasks/cancel after a switched task: %v", switched.cancelled)
	}
	switched.mu.Unlock()

	empty := newTaskServer(t, 0)
	empty.finish = map[string]any{"status": "completed"}
	s3 := connect(t, session.Options{Transport: session.TransportHTTP, URL: empty.url})
	if _, err := s3.CallTool(context.Background(), "slow", nil); err == nil || !strings.Contains(err.Error(), "without a result") {
		t.Errorf("completed without a result: %v", err)
	}
}

// A task whose result the host refuses (its tasks/get answer is over the
// response cap) is cancelled at the server: the host will not read it, so
// the server need not keep it or keep working on it.
func TestTaskResultOverTheCapIsCancelled(t *testing.T) {
	ts := newTaskServer(t, 1)
	ts.finish = map[string]any{"status": "completed", "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": strings.Repeat("x", 2<<20)}}}}
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url, MaxResponseBytes: 1 << 20})
	_, err := s.CallTool(context.Background(), "slow", nil)
	if !errors.Is(err, session.ErrResponseTooLarge) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("err = %v, want the cap's error saying the task was cancelled", err)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.cancelled) != 1 || ts.cancelled[0] != "task-1" {
		t.Errorf("tasks/cancel received for %v, want [task-1]", ts.cancelled)
	}
}
