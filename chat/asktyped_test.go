package chat

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// Text typed while a permission question is open is kept for after the
// answer, and none of its letters answers (the t of "what" would allow
// the tool always); once erased, a single key answers as before.
func TestTextTypedDuringAQuestionIsKept(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	reply := make(chan answer, 1)
	drive(m, askMsg{confirm: &protocol.ConfirmParams{Kind: protocol.ConfirmKindToolCall, Tool: &protocol.ConfirmTool{Server: "notes", Tool: "get_weather"}}, reply: reply})
	for _, r := range "what is this" {
		k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
		if r == ' ' {
			k = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		}
		drive(m, k)
	}
	drive(m, tea.KeyMsg{Type: tea.KeyEnter})
	select {
	case a := <-reply:
		t.Fatalf("typing answered the question: %+v", a.confirm)
	default:
	}
	if m.ask == nil || m.input.Value() != "what is this" {
		t.Fatalf("question open %v, input %q; want open and the text kept", m.ask != nil, m.input.Value())
	}
	if !strings.Contains(m.View(), "your text is kept") {
		t.Errorf("no word of the kept text:\n%s", m.View())
	}
	// Alt+d answers, the text stays for the next prompt.
	drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'d'}, Alt: true})
	select {
	case a := <-reply:
		if a.confirm.Answer != protocol.AnswerDeny {
			t.Errorf("answer %+v", a.confirm)
		}
	default:
		t.Fatal("Alt+d did not answer")
	}
	if m.input.Value() != "what is this" {
		t.Errorf("the text is gone after the answer: %q", m.input.Value())
	}

	// Erased, the single keys answer again.
	drive(m, askMsg{confirm: &protocol.ConfirmParams{Kind: protocol.ConfirmKindToolCall, Tool: &protocol.ConfirmTool{Server: "notes", Tool: "get_weather"}}, reply: reply})
	drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}})
	drive(m, tea.KeyMsg{Type: tea.KeyBackspace})
	drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'o'}})
	select {
	case a := <-reply:
		if a.confirm.Answer != protocol.AnswerAllowOnce {
			t.Errorf("answer %+v", a.confirm)
		}
	default:
		t.Fatal("o did not answer once the text was erased")
	}
}
