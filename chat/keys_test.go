package chat

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

var ctrlC = tea.KeyMsg{Type: tea.KeyCtrlC}

// fakeClock lets a test move the model's time.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// keyOut sends k and returns what the transcript gained and whether the
// model started quitting.
func keyOut(m *Model, k tea.KeyMsg) (string, bool) {
	m.out = nil
	m.update(k)
	out := strings.Join(m.out, "\n")
	m.out = nil
	return out, strings.Contains(out, "shutting down")
}

// At the prompt the first Ctrl+C clears what was typed (or, with nothing
// typed, says how to quit); a second one within a few seconds quits.
func TestCtrlCTwiceQuits(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	clock := &fakeClock{t: time.Unix(1000, 0)}
	m.now = clock.now
	for _, r := range "half a thought" {
		m.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	if _, quit := keyOut(m, ctrlC); quit || m.input.Value() != "" {
		t.Fatalf("first Ctrl+C with text: quit %v, input %q", quit, m.input.Value())
	}
	if _, quit := keyOut(m, ctrlC); quit {
		t.Fatal("Ctrl+C on an empty prompt quit at once")
	}
	if v := m.View(); !strings.Contains(v, "press Ctrl+C again to quit") {
		t.Errorf("no hint after Ctrl+C on an empty prompt:\n%s", v)
	}
	clock.t = clock.t.Add(5 * time.Second)
	if v := m.View(); strings.Contains(v, "press Ctrl+C again") {
		t.Errorf("the hint stays after it expired:\n%s", v)
	}
	if _, quit := keyOut(m, ctrlC); quit {
		t.Fatal("a Ctrl+C long after the first quit")
	}
	clock.t = clock.t.Add(time.Second)
	if _, quit := keyOut(m, ctrlC); !quit {
		t.Fatal("a second Ctrl+C within a few seconds did not quit")
	}
}

func openConfirm(m *Model) chan answer {
	reply := make(chan answer, 1)
	m.update(askMsg{confirm: &protocol.ConfirmParams{Kind: protocol.ConfirmKindToolCall, Tool: &protocol.ConfirmTool{
		Server: "everything", Tool: "echo", Arguments: `{"message":"hi"}`}}, reply: reply})
	m.out = nil
	return reply
}

// During a permission prompt Ctrl+C and Esc deny the call, and the
// transcript says so; neither quits.
func TestCtrlCAndEscDenyThePrompt(t *testing.T) {
	for _, k := range []struct {
		key  tea.KeyMsg
		name string
	}{{ctrlC, "Ctrl+C"}, {tea.KeyMsg{Type: tea.KeyEsc}, "Esc"}} {
		m := newTestModel(&fakeRuntime{})
		reply := openConfirm(m)
		out, quit := keyOut(m, k.key)
		if quit {
			t.Errorf("%s during the prompt quit", k.name)
		}
		select {
		case a := <-reply:
			if a.confirm == nil || a.confirm.Answer != protocol.AnswerDeny {
				t.Errorf("%s answered %+v", k.name, a.confirm)
			}
		default:
			t.Errorf("%s did not answer the prompt", k.name)
		}
		if want := "everything/echo: denied (" + k.name; !strings.Contains(out, want) {
			t.Errorf("%s: transcript %q lacks %q", k.name, out, want)
		}
		if m.ask != nil {
			t.Errorf("%s left the prompt open", k.name)
		}
	}
}
