package chat

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// A call of a tool with an MCP App says so, and where to see the app; the
// app's URI, the server's text, cannot drive the terminal.
func TestToolCallWithAppSaysHostWeb(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	typeLine(m, "what time is it")
	call := &protocol.ToolCallInfo{ID: "c1", PublicName: "mcp_basic_get_time_1", Server: "basic", Tool: "get-time", Arguments: []byte(`{}`),
		App: &protocol.AppInstance{ID: "app1", Server: "basic", Tool: "get-time", ResourceURI: "ui://get-time/\x1b]0;pwned\x07app.html"}}
	got := strings.Join(transcript(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: call}}), "\n")
	if !strings.Contains(got, "get-time has an app (ui://get-time/app.html)") || !strings.Contains(got, "run `host web`") {
		t.Errorf("tool call with an app:\n%s", got)
	}
	if strings.ContainsAny(got, "\x07") || strings.Contains(got, "]0;") {
		t.Errorf("the app's URI reached the terminal raw: %q", got)
	}
	plain := &protocol.ToolCallInfo{ID: "c2", PublicName: "mcp_basic_echo_1", Server: "basic", Tool: "echo"}
	if got := strings.Join(transcript(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: plain}}), "\n"); strings.Contains(got, "host web") {
		t.Errorf("a tool without an app got the hint:\n%s", got)
	}
}
