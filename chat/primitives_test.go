package chat

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

func TestSplitArgsKeepsQuotedSpaces(t *testing.T) {
	got := splitArgs(`/s:p a=1  b="two words" c=`)
	if want := []string{"/s:p", "a=1", "b=two words", "c="}; !slices.Equal(got, want) {
		t.Errorf("splitArgs = %q, want %q", got, want)
	}
}

// Only @server:uri words of configured servers are attachments; an e-mail
// address or an unknown server is text.
func TestAttachmentsNeedAKnownServer(t *testing.T) {
	m := layoutModel()
	got := m.attachments("see @everything:demo://r/1 and me@example.com and @nope:x://y @notes:")
	if want := []protocol.ResourceParams{{Server: "everything", URI: "demo://r/1"}}; !slices.Equal(got, want) {
		t.Errorf("attachments = %+v, want %+v", got, want)
	}
}

// One candidate completes the word (with a space unless more can follow);
// several extend it to their common prefix and are listed under the
// input; an answer for an input that changed meanwhile is dropped; server
// text is stripped.
func TestApplyCompletion(t *testing.T) {
	m := layoutModel()
	m.input.SetValue("/everything:simp")
	m.applyCompletion(completeMsg{input: "/everything:simp", candidates: []string{"/help", "/everything:simple-prompt"}})
	if v := m.input.Value(); v != "/everything:simple-prompt " {
		t.Errorf("one candidate: input = %q", v)
	}
	m.input.SetValue("/x:p name=")
	m.applyCompletion(completeMsg{input: "/x:p name=", from: 5, candidates: []string{"name=Eve", "name=Ed\x1b[31m"}})
	if v := m.input.Value(); v != "/x:p name=E" {
		t.Errorf("two candidates: input = %q", v)
	}
	if listed := m.View(); !strings.Contains(listed, "name=Ed") || strings.Contains(listed, "\x1b[31m") || !strings.Contains(listed, "name=Eve") {
		t.Errorf("listed candidates = %q", listed)
	}
	m.input.SetValue("changed")
	m.applyCompletion(completeMsg{input: "/x:p name=E", from: 5, candidates: []string{"name=Eve"}})
	if v := m.input.Value(); v != "changed" {
		t.Errorf("stale answer changed the input to %q", v)
	}
}
