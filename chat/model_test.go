package chat

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// fakeRuntime records the requests the chat makes.
type fakeRuntime struct {
	protocol.Server
	mu      sync.Mutex
	prompts []string
	logins  []string
}

func (f *fakeRuntime) RunStart(_ context.Context, p *protocol.RunStartParams) (*protocol.RunStartResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prompts = append(f.prompts, p.Prompt)
	return &protocol.RunStartResult{RunID: "r1", Conversation: "c1"}, nil
}

func (f *fakeRuntime) MCPLogin(_ context.Context, p *protocol.LoginParams) (*protocol.ServerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logins = append(f.logins, p.ID)
	return &protocol.ServerResult{Server: protocol.ServerStatus{ID: p.ID, Auth: &protocol.AuthStatus{LoggedIn: true, Detail: "token valid until 10:00"}}}, nil
}

// drive runs msg through the model (without the transcript printing) and,
// for Enter, the runtime call it starts, as the program would.
func drive(m *Model, msg tea.Msg) {
	_, cmd := m.update(msg)
	m.out = nil
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyEnter && cmd != nil {
		if res := cmd(); res != nil {
			m.update(res)
		}
	}
}

func typeLine(m *Model, s string) {
	for _, r := range s {
		drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	drive(m, tea.KeyMsg{Type: tea.KeyEnter})
}

func newTestModel(rt protocol.Server) *Model {
	return NewModel(rt, &protocol.InitializeResult{
		Capabilities: protocol.RuntimeCapabilities{Runs: true, Model: "test"},
		Servers: []protocol.ServerStatus{
			{ID: "files", Transport: "stdio", Source: "project", Enabled: true, Status: protocol.StateConnecting},
			{ID: "notes", Transport: "http", Source: "global", Enabled: true, Status: protocol.StateAuthRequired, Auth: &protocol.AuthStatus{Detail: "not logged in"}},
		},
	})
}

func TestMCPTableIsLive(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	typeLine(m, "/mcp")
	v := m.View()
	if !strings.Contains(v, "connecting") || !strings.Contains(v, "not logged in") {
		t.Fatalf("table:\n%s", v)
	}
	drive(m, statusMsg{protocol.MCPStatusParams{Server: protocol.ServerStatus{ID: "files", Transport: "stdio", Enabled: true, Status: protocol.StateReady, Tools: 7}}})
	if v := m.View(); !strings.Contains(v, "ready") || !strings.Contains(v, " 7 ") {
		t.Fatalf("after mcp.status:\n%s", v)
	}
	if !strings.Contains(m.View(), "servers: 1 ready, 1 auth_required") {
		t.Errorf("status line: %s", m.statusLine())
	}
}

func TestPromptStartsARun(t *testing.T) {
	rt := &fakeRuntime{}
	m := newTestModel(rt)
	typeLine(m, "what is up")
	if len(rt.prompts) != 1 || rt.prompts[0] != "what is up" || m.run != "r1" {
		t.Fatalf("prompts %v run %q", rt.prompts, m.run)
	}
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: "Hel"}})
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: "lo"}})
	if !strings.Contains(m.View(), "Hello") {
		t.Errorf("streamed text not shown:\n%s", m.View())
	}
	drive(m, runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunCompleted}})
	if m.run != "" || m.stream != "" {
		t.Errorf("run not finished: %q %q", m.run, m.stream)
	}
}

// Events of a run can reach Update before run.start's answer does; they
// are kept and shown once the run id is known, not dropped.
func TestEventsBeforeTheRunIDAreKept(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	for _, r := range "hi" {
		drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	_, cmd := m.update(tea.KeyMsg{Type: tea.KeyEnter}) // run.start sent, not yet answered
	drive(m, runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunRunning}})
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: "First "}})
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: "words"}})
	drive(m, cmd()) // the answer arrives last
	if m.run != "r1" || !strings.Contains(m.View(), "First words") {
		t.Fatalf("run %q, view:\n%s", m.run, m.View())
	}
}

func TestDenyWithReason(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	reply := make(chan answer, 1)
	drive(m, askMsg{confirm: &protocol.ConfirmParams{Kind: protocol.ConfirmKindToolCall, Tool: &protocol.ConfirmTool{
		Server: "files", Tool: "write_file", Arguments: `{"path":"/etc/passwd"}`, Changed: true,
		Annotations: &protocol.Annotations{Untrusted: true, ReadOnlyHint: true},
	}}, reply: reply})
	v := m.View()
	for _, want := range []string{"Allow files/write_file?", "/etc/passwd", "CHANGED", "untrusted", "deny with [r]eason"} {
		if !strings.Contains(v, want) {
			t.Errorf("confirm view lacks %q:\n%s", want, v)
		}
	}
	drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'r'}})
	typeLine(m, "not that file")
	select {
	case a := <-reply:
		if a.confirm.Answer != protocol.AnswerDenyWithReason || a.confirm.Reason != "not that file" {
			t.Errorf("answer %+v", a.confirm)
		}
	default:
		t.Fatal("no answer")
	}
	if m.ask != nil {
		t.Error("question still open")
	}
}

func TestLoginConfirmAndCommand(t *testing.T) {
	rt := &fakeRuntime{}
	m := newTestModel(rt)
	typeLine(m, "/login notes")
	if len(rt.logins) != 1 || rt.logins[0] != "notes" {
		t.Fatalf("logins %v", rt.logins)
	}
	reply := make(chan answer, 1)
	drive(m, askMsg{confirm: &protocol.ConfirmParams{Kind: protocol.ConfirmKindLogin, Message: "log in?", Login: &protocol.ConfirmLogin{Server: "notes", Issuer: "https://as.example"}}, reply: reply})
	if !strings.Contains(m.View(), "https://as.example") {
		t.Errorf("login confirm:\n%s", m.View())
	}
	drive(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}})
	if a := <-reply; a.confirm.Answer != protocol.AnswerYes {
		t.Errorf("answer %+v", a.confirm)
	}
}
