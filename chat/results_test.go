package chat

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// cancelRuntime answers run.cancel.
type cancelRuntime struct{ fakeRuntime }

func (*cancelRuntime) RunCancel(context.Context, *protocol.RunCancelParams) (*protocol.Empty, error) {
	return &protocol.Empty{}, nil
}

var echoCall = &protocol.ToolCallInfo{ID: "c1", PublicName: "everything__echo", Server: "everything", Tool: "echo"}

func ev(typ string, f func(*protocol.AgentEventParams)) eventMsg {
	e := protocol.AgentEventParams{RunID: "r1", Type: typ, Call: echoCall}
	if f != nil {
		f(&e)
	}
	return eventMsg{e}
}

func errResult(text string) func(*protocol.AgentEventParams) {
	return func(e *protocol.AgentEventParams) {
		e.Result = &protocol.ToolResult{IsError: true, Content: []protocol.Content{{Type: "text", Text: text}}}
	}
}

// transcript runs msgs through m (with the commands they start) and
// returns every line the transcript gained.
func transcript(m *Model, msgs ...tea.Msg) []string {
	var all []string
	for _, msg := range msgs {
		m.out = nil
		_, cmd := m.update(msg)
		all = append(all, m.out...)
		if k, ok := msg.(tea.KeyMsg); ok && cmd != nil && k.Type != tea.KeyRunes {
			if res := cmd(); res != nil {
				m.out = nil
				m.update(res)
				all = append(all, m.out...)
			}
		}
	}
	m.out = nil
	return strings.Split(strings.Join(all, "\n"), "\n")
}

func linesWith(lines []string, s string) []string {
	var got []string
	for _, l := range lines {
		if strings.Contains(l, s) {
			got = append(got, l)
		}
	}
	return got
}

// A call the person denies with a reason is one line, in words.
func TestDenialIsOneLine(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	typeLine(m, "echo it")
	var msgs []tea.Msg
	msgs = append(msgs, ev(protocol.EventToolCall, nil), ev(protocol.EventPermission, func(e *protocol.AgentEventParams) { e.Phase = "asked" }))
	got := transcript(m, msgs...)
	openConfirm(m)
	got = append(got, transcript(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'r'}})...)
	for _, r := range "not that file" {
		m.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	got = append(got, transcript(m, tea.KeyMsg{Type: tea.KeyEnter},
		ev(protocol.EventPermission, func(e *protocol.AgentEventParams) {
			e.Phase, e.Decision, e.Reason = "decided", "deny_with_reason", "denied by user: not that file"
		}),
		ev(protocol.EventToolResult, errResult("The user denied this tool call: not that file")))...)
	if d := linesWith(got, "den"); len(d) != 1 || d[0] != "everything/echo: denied (not that file)" {
		t.Errorf("the denial shows as %q; transcript:\n%s", d, strings.Join(got, "\n"))
	}
	if strings.Contains(strings.Join(got, "\n"), "deny_with_reason") {
		t.Errorf("the raw decision is shown:\n%s", strings.Join(got, "\n"))
	}
}

// A call a rule denies (no question asked) is one line as well.
func TestRuleDenialIsOneLine(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	typeLine(m, "echo it")
	got := transcript(m, ev(protocol.EventToolCall, nil),
		ev(protocol.EventPermission, func(e *protocol.AgentEventParams) {
			e.Phase, e.Decision, e.Reason = "decided", "deny", "denied by rule everything/echo"
		}),
		ev(protocol.EventToolResult, errResult("The user denied this tool call.")))
	if d := linesWith(got, "den"); len(d) != 1 || d[0] != "everything/echo: denied (by rule everything/echo)" {
		t.Errorf("the denial shows as %q", d)
	}
}

// A tool call cancelled by Esc says cancelled, not the error chain.
func TestCancelledCallSaysCancelled(t *testing.T) {
	m := newTestModel(&cancelRuntime{})
	typeLine(m, "echo it")
	got := transcript(m, ev(protocol.EventToolCall, nil), tea.KeyMsg{Type: tea.KeyEsc},
		ev(protocol.EventToolResult, errResult(`Tool "everything__echo" was cancelled: session: everything: call echo: context canceled`)),
		runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunCancelled}})
	all := strings.Join(got, "\n")
	if !strings.Contains(all, "← everything/echo: cancelled") || strings.Contains(all, "context canceled") {
		t.Errorf("transcript:\n%s", all)
	}
}

// A failed run's error is printed once, not as an error event and again
// as the run's status.
func TestRunErrorPrintedOnce(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	typeLine(m, "echo it")
	got := transcript(m, ev(protocol.EventError, func(e *protocol.AgentEventParams) { e.Error = "script: exhausted after 2 turns" }),
		runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunFailed, Error: "script: exhausted after 2 turns"}})
	if n := len(linesWith(got, "exhausted")); n != 1 {
		t.Errorf("printed %d times:\n%s", n, strings.Join(got, "\n"))
	}
}

// endsRecorder records the conversations /new ends.
type endsRecorder struct{ ended []string }

func (e *endsRecorder) ConversationEnd(_ context.Context, p *protocol.ConversationParams) (*protocol.Empty, error) {
	e.ended = append(e.ended, p.Conversation)
	return &protocol.Empty{}, nil
}

// /new ends the conversation it leaves (the runtime removes the results
// it kept for it); /new without one sends nothing.
func TestNewEndsTheOldConversation(t *testing.T) {
	m := layoutModel()
	rec := &endsRecorder{}
	m.ends = rec
	if cmd := m.submit("/new"); cmd != nil {
		cmd()
	}
	m.conv = "c7"
	if cmd := m.submit("/new"); cmd != nil {
		cmd()
	}
	if len(rec.ended) != 1 || rec.ended[0] != "c7" || m.conv != "" {
		t.Errorf("ended %v, conv %q; want [c7] and no conversation", rec.ended, m.conv)
	}
}
