package chat

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcp-host/mcp-host/protocol"
)

// A URL-mode elicitation is asked as a yes/no question that shows the
// server, the exact page and the server's reason as its claim.
func TestElicitationConfirm(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	reply := make(chan answer, 1)
	drive(m, askMsg{confirm: &protocol.ConfirmParams{
		Kind: protocol.ConfirmKindElicitation, Title: "Open a page for pages?", Message: "continue?",
		Elicitation: &protocol.ConfirmElicitation{Server: "pages", URL: "https://pages.example/key", Message: "Enter your key\x1b[2J"},
	}, reply: reply})
	v := m.View()
	for _, want := range []string{"pages asks you to continue", "https://pages.example/key", "claimed by the server: Enter your key", "[y]es, open the page"} {
		if !strings.Contains(v, want) {
			t.Errorf("elicitation confirm lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "\x1b[2J") {
		t.Error("the server's escape reached the screen")
	}
	drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}})
	if a := <-reply; a.confirm.Answer != protocol.AnswerYes {
		t.Errorf("answer %+v, want yes", a.confirm)
	}
}

// A page on a look-alike host ("аpple.com" with a Cyrillic "а") is shown
// in the display form the runtime sent (the host in ASCII form), never as
// the raw URL that reads apple.com.
func TestElicitationConfirmShowsTheDisplayForm(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	reply := make(chan answer, 1)
	drive(m, askMsg{confirm: &protocol.ConfirmParams{
		Kind: protocol.ConfirmKindElicitation, Title: "Open a page for pages?", Message: "continue?",
		Elicitation: &protocol.ConfirmElicitation{Server: "pages", URL: "https://\u0430pple.com/signin",
			DisplayForm: protocol.DisplayForm{DisplayURL: "https://xn--pple-43d.com/signin", DisplayHost: "xn--pple-43d.com"}},
	}, reply: reply})
	v := m.View()
	if !strings.Contains(v, "https://xn--pple-43d.com/signin") || !strings.Contains(v, "host: xn--pple-43d.com") || strings.Contains(v, "\u0430pple") {
		t.Errorf("the look-alike page is not shown in its ASCII form:\n%s", v)
	}
	drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	<-reply
}

// A confirm of a kind this chat has no view for, without tool details,
// is a plain yes/no question (a runtime newer than the chat must not crash
// it), and Esc answers no.
func TestUnknownConfirmKindIsYesNo(t *testing.T) {
	for _, k := range []string{"n", "esc"} {
		m := newTestModel(&fakeRuntime{})
		reply := make(chan answer, 1)
		drive(m, askMsg{confirm: &protocol.ConfirmParams{Kind: "something_new", Title: "Do the new thing?", Message: "details"}, reply: reply})
		if v := m.View(); !strings.Contains(v, "Do the new thing?") || !strings.Contains(v, "[y]es   [n]o") {
			t.Errorf("unknown kind shown as:\n%s", v)
		}
		msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}}
		if k == "esc" {
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		}
		drive(m, msg)
		if a := <-reply; a.confirm.Answer != protocol.AnswerNo {
			t.Errorf("%s: answer %+v, want no", k, a.confirm)
		}
	}
}

// An elicitation asked again says which fields failed and why, stripped.
func TestElicitationAskedAgainSaysWhy(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	reply := make(chan answer, 1)
	m.update(clean(askMsg{elicit: &protocol.ElicitParams{
		Server: "forms", Message: "Your details", RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`),
		Attempt: 2, Invalid: []protocol.ElicitFieldError{{Field: "name", Message: "is required\x1b[2J"}},
	}, reply: reply}))
	v := strings.Join(m.out, "\n")
	if !strings.Contains(v, "forms asks again (attempt 2): name is required") || strings.Contains(v, "\x1b[2J") {
		t.Errorf("a repeated ask shows:\n%s", v)
	}
}
