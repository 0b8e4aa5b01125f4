package chat

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// A tool confirm says what changed since the tool was always allowed, and
// shows the server's description as its claim, a few lines at most.
func TestConfirmShowsChangeAndDescription(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	drive(m, askMsg{reply: make(chan answer, 1), confirm: &protocol.ConfirmParams{Kind: protocol.ConfirmKindToolCall, Tool: &protocol.ConfirmTool{
		Server: "files", Tool: "write_file", Arguments: `{}`, Changed: true, ChangedFields: []string{"title", "input schema"},
		Description: "Writes a file.\nl2\nl3\nl4\nl5 hidden",
	}}})
	v := m.View()
	for _, want := range []string{"CHANGED since you always allowed it (changed: title, input schema)", "description, claimed by the server: Writes a file.", "l4", "…"} {
		if !strings.Contains(v, want) {
			t.Errorf("confirm view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "l5 hidden") {
		t.Errorf("confirm view shows more than %d description lines:\n%s", maxDescLines, v)
	}
	m.closeAsk()
	drive(m, askMsg{reply: make(chan answer, 1), confirm: &protocol.ConfirmParams{Kind: protocol.ConfirmKindToolCall, Tool: &protocol.ConfirmTool{
		Server: "files", Tool: "write_file", Arguments: `{}`, Changed: true,
	}}})
	if v := m.View(); !strings.Contains(v, "what changed is not known") {
		t.Errorf("a change of unknown parts is not said so:\n%s", v)
	}
}
