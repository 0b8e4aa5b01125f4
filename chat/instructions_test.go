package chat

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestDetailShowsInstructions: /mcp <id> shows the server's instructions,
// cleaned, and says when the config leaves them out of the model's
// context.
func TestDetailShowsInstructions(t *testing.T) {
	d := protocol.ServerDetail{ServerStatus: protocol.ServerStatus{ID: "docs"}, Instructions: "Call \x1b]0;x\x07search first.\nThen read."}
	cleanDetail(&d)
	out := renderDetail(d)
	if !strings.Contains(out, "instructions (the server's text, given to the model):\n  Call search first.\n  Then read.") || strings.Contains(out, "\x1b") {
		t.Errorf("detail:\n%q", out)
	}
	d.InstructionsOff = true
	if out := renderDetail(d); !strings.Contains(out, `left out of the model's context by "instructions": false`) {
		t.Errorf("detail with instructions off:\n%s", out)
	}
}
