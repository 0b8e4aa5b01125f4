package chat

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// typedDuringAsk keeps text the person types while a confirm question is
// open instead of throwing it away, and keeps it from answering: a key
// that is no answer starts the text (in the input line, after what was
// there when the question opened), and while such text is there every
// key edits it (else the t of "what" would allow a tool always); the
// answers are then Alt with their key, or the single keys again once the
// text is erased. It reports whether k was taken as text.
func (m *Model) typedDuringAsk(k tea.KeyMsg, c *protocol.ConfirmParams) (tea.Cmd, bool) {
	typing := m.input.Value() != m.askDraft
	switch {
	case typing && k.Alt && k.Type == tea.KeyRunes && answerKey(string(k.Runes), c):
		return nil, false // Alt+o and the like answer, the text stays
	case k.Type == tea.KeyRunes && (typing || !answerKey(k.String(), c)):
	case typing && (k.Type == tea.KeyBackspace || k.Type == tea.KeyDelete || k.Type == tea.KeySpace ||
		k.Type == tea.KeyLeft || k.Type == tea.KeyRight || k.Type == tea.KeyCtrlU || k.Type == tea.KeyCtrlW):
	case typing && k.Type == tea.KeyEnter:
		return nil, true // the text is for after the answer; Enter answers nothing
	default:
		return nil, false
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd, true
}

// answerKey reports whether key answers the confirm c.
func answerKey(key string, c *protocol.ConfirmParams) bool {
	switch key {
	case "y", "n", "Y", "N":
		return yesNo(c)
	case "o", "t", "s", "d", "r", "O", "T", "S", "D", "R":
		return !yesNo(c)
	}
	return false
}

// typedNote is the line the question shows while kept text blocks the
// single-key answers.
func (m *Model) typedNote() string {
	if m.ask == nil || m.askStage != "" || m.input.Value() == m.askDraft {
		return ""
	}
	keys := "Alt+o/t/s/d/r"
	if yesNo(m.ask.confirm) {
		keys = "Alt+y/n"
	}
	return styleWarn.Render("your text is kept for after the answer: answer with " + keys + " (or erase the text)")
}
