package chat

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcp-host/mcp-host/protocol"
)

// A server that fails on every retry says its error once in the
// transcript; the repeats are counted on the screen instead.
func TestRepeatedServerErrorShownOnce(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	m.out = nil
	var printed []string
	for i := 0; i < 6; i++ {
		for _, st := range []string{protocol.StateConnecting, protocol.StateError} {
			m.update(statusMsg{protocol.MCPStatusParams{Server: protocol.ServerStatus{ID: "notes", Transport: "http", Enabled: true, Status: st, LastError: "connect: connection refused"}}})
		}
		m.update(logMsg{protocol.LogParams{Level: "warn", Server: "notes", Message: "notes: retrying in 5s"}})
		printed = append(printed, m.out...)
		m.out = nil
	}
	all := strings.Join(printed, "\n")
	if n := strings.Count(all, "connection refused"); n != 1 {
		t.Errorf("the error was printed %d times:\n%s", n, all)
	}
	if n := strings.Count(all, "retrying in 5s"); n != 1 {
		t.Errorf("the server's log line was printed %d times:\n%s", n, all)
	}
	if v := m.View(); !strings.Contains(v, "notes: error — connect: connection refused (×6)") {
		t.Errorf("no repeat count on the screen:\n%s", v)
	}
	// At 60 columns the line is cut, not its count.
	m.update(tea.WindowSizeMsg{Width: 40, Height: 30})
	if v := m.View(); !strings.Contains(v, "notes: error — connect: connectio… (×6)") {
		t.Errorf("the count is cut at 40 columns (39 drawn):\n%s", v)
	}
	m.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	// Ready again: the count goes; a new failure is printed again.
	m.update(statusMsg{protocol.MCPStatusParams{Server: protocol.ServerStatus{ID: "notes", Status: protocol.StateReady}}})
	if v := m.View(); strings.Contains(v, "×") {
		t.Errorf("the count stays after the server recovered:\n%s", v)
	}
	m.out = nil
	m.update(statusMsg{protocol.MCPStatusParams{Server: protocol.ServerStatus{ID: "notes", Status: protocol.StateError, LastError: "connect: connection refused"}}})
	if !strings.Contains(strings.Join(m.out, "\n"), "connection refused") {
		t.Errorf("a failure after recovery is not printed: %q", m.out)
	}
}

// A server that already failed when the chat starts is reported, once.
func TestProblemAtStartShown(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	if out := strings.Join(m.out, "\n"); !strings.Contains(out, "notes: auth_required") {
		t.Fatalf("the start does not report notes:\n%s", out)
	}
	m.out = nil
	m.update(statusMsg{protocol.MCPStatusParams{Server: protocol.ServerStatus{ID: "notes", Status: protocol.StateAuthRequired, Auth: &protocol.AuthStatus{Detail: "not logged in"}}}})
	if len(m.out) != 0 {
		t.Errorf("reported again: %q", m.out)
	}
}
