package chat

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// The status line says what the chat waits for: the person's answer, a
// tool call (with its time), or the model.
func TestStatusSaysWhatItWaitsFor(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	clock := &fakeClock{t: time.Unix(1000, 0)}
	m.now = clock.now
	typeLine(m, "echo it")
	if s := m.statusLine(); !strings.Contains(s, "thinking") {
		t.Errorf("while the model works: %s", s)
	}
	call := &protocol.ToolCallInfo{ID: "c1", PublicName: "everything__echo", Server: "everything", Tool: "echo"}
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: call}})
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventPermission, Phase: "asked", Call: call}})
	openConfirm(m)
	if s := m.statusLine(); !strings.Contains(s, "waiting for your answer") || strings.Contains(s, "thinking") {
		t.Errorf("during the permission prompt: %s", s)
	}
	drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'o'}})
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventPermission, Phase: "decided", Decision: "allow", Call: call}})
	clock.t = clock.t.Add(12 * time.Second)
	if s := m.statusLine(); !strings.Contains(s, "running everything/echo 12s") || strings.Contains(s, "thinking") {
		t.Errorf("during the tool call: %s", s)
	}
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolResult, Call: call, Result: &protocol.ToolResult{Content: []protocol.Content{{Type: "text", Text: "ok"}}}}})
	if s := m.statusLine(); !strings.Contains(s, "thinking") || strings.Contains(s, "running") {
		t.Errorf("after the tool call: %s", s)
	}
	drive(m, runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunCompleted}})
	if s := m.statusLine(); strings.Contains(s, "thinking") {
		t.Errorf("after the run: %s", s)
	}
}
