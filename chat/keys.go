package chat

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
	"time"
)

// quitWindow is how soon a second Ctrl+C must follow the first to quit.
const quitWindow = 3 * time.Second

// quitArmed reports whether a Ctrl+C now would quit.
func (m *Model) quitArmed() bool {
	return !m.ctrlCAt.IsZero() && m.now().Sub(m.ctrlCAt) < quitWindow
}

// ctrlCKey handles Ctrl+C: an open question is cancelled (an explicit
// deny); otherwise a press clears the typed text, or cancels the running
// answer, or arms quitting: a second one within quitWindow quits.
func (m *Model) ctrlCKey() tea.Cmd {
	if m.ask != nil {
		m.cancelAsk("Ctrl+C")
		return nil
	}
	if m.approving != "" {
		return m.approvalKey(tea.KeyMsg{Type: tea.KeyEsc})
	}
	if m.quitArmed() {
		m.ctrlCAt = time.Time{}
		return m.quit()
	}
	if m.run == "" && m.input.Value() != "" {
		m.input.SetValue("")
		return nil
	}
	m.ctrlCAt = m.now()
	if m.run != "" {
		return m.cancelRun()
	}
	return nil
}

// cancelAsk answers the open question with its refusal (deny, no,
// cancelled, decline) because the person pressed key, and says so.
func (m *Model) cancelAsk(key string) {
	a := *m.ask
	switch {
	case a.confirm != nil && yesNo(a.confirm):
		m.reply(a, answer{confirm: &protocol.ConfirmResult{Answer: protocol.AnswerNo}})
		what := a.confirm.Kind
		if what == "" {
			what = "question"
		}
		m.addLine(styleDim.Render(fmt.Sprintf("%s: no (%s)", what, key)))
	case a.confirm != nil:
		m.reply(a, answer{confirm: &protocol.ConfirmResult{Answer: protocol.AnswerDeny}})
		m.userDenied(a.confirm.Tool, key)
	case a.prompt != nil:
		m.reply(a, answer{prompt: &protocol.PromptResult{Cancelled: true}})
		m.addLine(styleDim.Render(fmt.Sprintf("login: cancelled (%s)", key)))
	case a.elicit != nil:
		m.reply(a, answer{elicit: &protocol.ElicitResult{Action: "decline"}})
		m.addLine(styleDim.Render(fmt.Sprintf("%s: input declined (%s)", a.elicit.Server, key)))
	}
	m.closeAsk()
}

// userDenied says, in one line, that the person denied a tool call.
func (m *Model) userDenied(t *protocol.ConfirmTool, why string) {
	name := "tool"
	if t != nil {
		name = t.Server + "/" + t.Tool
	}
	m.outcome.answeredDeny(name)
	line := name + ": denied"
	if why != "" {
		line += " (" + why + ")"
	}
	m.addLine(styleWarn.Render(line))
}
