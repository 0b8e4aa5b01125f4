package chat

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// A lazy server that is not running shows as idle with its kept tools, in
// /mcp and in the status line.
func TestIdleServerShowsCachedTools(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	typeLine(m, "/mcp")
	drive(m, statusMsg{protocol.MCPStatusParams{Server: protocol.ServerStatus{ID: "files", Transport: "stdio", Enabled: true, Status: protocol.StateIdle, Tools: 7, Cached: true}}})
	if v := m.View(); !strings.Contains(v, "idle (cached)") || !strings.Contains(v, " 7 ") {
		t.Fatalf("table:\n%s", v)
	}
	if s := m.statusLine(); !strings.Contains(s, "1 idle") {
		t.Errorf("status line: %s", s)
	}
}
