package runtime

import (
	"strings"
	"testing"
)

// TestServerInstructionsStrippedAndBounded: escapes and invisible
// characters go, newlines stay, and more than 2 KB is cut with a note.
func TestServerInstructionsStrippedAndBounded(t *testing.T) {
	got := ServerInstructions("Use \x1b[31mred\x1b[0m\u200b tools.\nSecond line.")
	if got != "Use red tools.\nSecond line." {
		t.Errorf("stripped: %q", got)
	}
	long := ServerInstructions(strings.Repeat("é", 3000))
	body, note, ok := strings.Cut(long, "\n[instructions cut: ")
	if !ok || len(body) > MaxInstructionsBytes || !strings.Contains(note, "of 6000 bytes left out") {
		t.Errorf("long: body %d bytes, note %q", len(body), note)
	}
}
