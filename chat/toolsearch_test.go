package chat

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// The status line says when the runtime searches the catalog instead of
// handing the model every tool, from the run's running status on, and
// stops saying it once a run starts without it.
func TestStatusShowsToolSearch(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	typeLine(m, "find the refund tool")
	if s := m.statusLine(); strings.Contains(s, "tool search") {
		t.Fatalf("before the runtime said so: %s", s)
	}
	info := &protocol.ToolSearchInfo{Tool: "mcp_tool_search", Tools: 10000, Bytes: 4_500_000, MaxTools: 128, MaxBytes: 65536}
	drive(m, runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunRunning, ToolSearch: info}})
	if s := m.statusLine(); !strings.Contains(s, "tool search: 10000 tools") {
		t.Fatalf("in search mode: %s", s)
	}
	drive(m, runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunCompleted}})
	if s := m.statusLine(); !strings.Contains(s, "tool search: 10000 tools") {
		t.Fatalf("after the run (the catalog is still searched): %s", s)
	}
	typeLine(m, "again")
	drive(m, runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunRunning}})
	if s := m.statusLine(); strings.Contains(s, "tool search") {
		t.Fatalf("a run offered every tool: %s", s)
	}
}
