package chat

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// A server's progress shows after its running call on the status line,
// stripped and bounded; reports for other calls or runs change nothing.
func TestStatusShowsProgress(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	clock := &fakeClock{t: time.Unix(1000, 0)}
	m.now = clock.now
	typeLine(m, "run it")
	call := &protocol.ToolCallInfo{ID: "c1", PublicName: "everything__long", Server: "everything", Tool: "long"}
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: call}})
	clock.t = clock.t.Add(3 * time.Second)
	report := func(runID, callID string, p protocol.Progress) {
		c := *call
		c.ID = callID
		drive(m, eventMsg{protocol.AgentEventParams{RunID: runID, Type: protocol.EventProgress, Call: &c, Progress: &p}})
	}
	report("r1", "c1", protocol.Progress{Progress: 2, Total: 4, Message: "copying\x1b]0;owned\x07 files\u202e" + strings.Repeat("x", 500)})
	s := m.statusLine()
	if !strings.Contains(s, "running everything/long 3s · 2/4 (50%) copying files") {
		t.Errorf("status line: %s", s)
	}
	if strings.ContainsAny(s, "\x07\u202e") || strings.Contains(s, "owned") || strings.Count(s, "x") > 100 {
		t.Errorf("progress message not stripped or bounded: %q", s)
	}
	report("r2", "c1", protocol.Progress{Progress: 3, Total: 4})
	report("r1", "other", protocol.Progress{Progress: 4, Total: 4})
	if s := m.statusLine(); !strings.Contains(s, "2/4") || strings.Contains(s, "3/4") || strings.Contains(s, "4/4") {
		t.Errorf("a report of another run or call changed the line: %s", s)
	}
	report("r1", "c1", protocol.Progress{Progress: 7})
	if s := m.statusLine(); !strings.Contains(s, "running everything/long 3s · 7") || strings.Contains(s, "%") {
		t.Errorf("progress without a total: %s", s)
	}
}

// The state of the task a server made of the running call shows too.
func TestStatusShowsTaskState(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	clock := &fakeClock{t: time.Unix(1000, 0)}
	m.now = clock.now
	typeLine(m, "build it")
	call := &protocol.ToolCallInfo{ID: "c1", PublicName: "tasks__build", Server: "tasks", Tool: "build"}
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: call}})
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTask, Call: call,
		Task: &protocol.TaskState{ID: "t1", Status: protocol.TaskWorking, Message: "compiling\x1b[2J step 2"}}})
	if s := m.statusLine(); !strings.Contains(s, "running tasks/build 0s · task working: compiling step 2") || strings.Contains(s, "\x1b") {
		t.Errorf("status line: %q", s)
	}
}
