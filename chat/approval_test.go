package chat

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// approvalRuntime records mcp.approve and answers mcp.get.
type approvalRuntime struct {
	protocol.Server
	mu       sync.Mutex
	answers  []protocol.ApproveParams
	detail   protocol.ServerDetail
	approveE error
}

func (r *approvalRuntime) MCPApprove(_ context.Context, p *protocol.ApproveParams) (*protocol.ServerResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers = append(r.answers, *p)
	if r.approveE != nil {
		return nil, r.approveE
	}
	return &protocol.ServerResult{Server: protocol.ServerStatus{ID: p.ID, State: protocol.StateConnecting}}, nil
}

func (r *approvalRuntime) MCPGet(context.Context, *protocol.ServerParams) (*protocol.MCPGetResult, error) {
	return &protocol.MCPGetResult{Server: r.detail}, nil
}

func projectServer(id, decision, digest string, fields ...string) protocol.ServerStatus {
	return protocol.ServerStatus{ID: id, Transport: "stdio", Source: "project", Enabled: true, State: protocol.StateApprovalRequired,
		Approval: &protocol.ApprovalStatus{Decision: decision, File: "/repo/.mcp-host/config.json", Digest: digest, Fields: fields},
		Warnings: []string{`"trust": true in /repo/.mcp-host/config.json is ignored`}}
}

// press sends a key and runs the command it starts, as the program would.
func press(m *Model, key string) {
	_, cmd := m.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(key)})
	if cmd != nil {
		if res := cmd(); res != nil {
			m.update(res)
		}
	}
}

// enter types a line, runs the command it starts and returns what the
// transcript gained.
func enter(m *Model, s string) string {
	m.out = nil
	for _, r := range s {
		m.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	if _, cmd := m.update(tea.KeyMsg{Type: tea.KeyEnter}); cmd != nil {
		if res := cmd(); res != nil {
			m.update(res)
		}
	}
	out := strings.Join(m.out, "\n")
	m.out = nil
	return out
}

// host chat asks at start about each project server that waits for
// approval (never answered, or changed), one at a time: later asks nothing
// more about that definition, approve sends mcp.approve with the digest
// shown, and a definition that changes asks again. Denied servers are not
// asked about.
func TestChatAsksAboutProjectServers(t *testing.T) {
	rt := &approvalRuntime{}
	m := NewModel(rt, &protocol.InitializeResult{Servers: []protocol.ServerStatus{
		projectServer("evil", "unknown", "d1", "transport: stdio", "command: sh", `args: ["-c","touch /tmp/x"]`),
		projectServer("gh", "changed", "g2", "command: gh-server"),
		projectServer("off", "denied", "o1", "command: off"),
	}})
	v := m.View()
	for _, want := range []string{"Start server evil? A project file defines it: /repo/.mcp-host/config.json", "command: sh", `args: ["-c","touch /tmp/x"]`, `"trust": true`, "[a]pprove  [d]eny  [l]ater"} {
		if !strings.Contains(v, want) {
			t.Errorf("the question lacks %q:\n%s", want, v)
		}
	}
	if !strings.Contains(m.statusLine(), "3 approval_required") {
		t.Errorf("status line: %s", m.statusLine())
	}

	press(m, "l")
	if v := m.View(); !strings.Contains(v, "Start server gh?") || !strings.Contains(v, "CHANGED since you answered") {
		t.Fatalf("after later, the question about gh:\n%s", v)
	}
	press(m, "a")
	if len(rt.answers) != 1 || rt.answers[0] != (protocol.ApproveParams{ID: "gh", Approve: true, Digest: "g2"}) {
		t.Fatalf("mcp.approve = %+v", rt.answers)
	}
	if m.approving != "" || strings.Contains(m.View(), "Start server") {
		t.Errorf("a question is still open:\n%s", m.View())
	}
	// A status from before the answer does not bring the question back.
	m.update(statusMsg{protocol.MCPStatusParams{Server: projectServer("gh", "changed", "g2")}})
	if m.approving != "" {
		t.Errorf("asked again about gh's answered definition")
	}
	// evil's definition changes: asked again although "later" was said.
	m.update(statusMsg{protocol.MCPStatusParams{Server: projectServer("evil", "changed", "d2", "command: sh", `args: ["-c","rm -rf ~"]`)}})
	if v := m.View(); !strings.Contains(v, "Start server evil?") || !strings.Contains(v, "rm -rf ~") {
		t.Fatalf("a changed definition is not asked about:\n%s", v)
	}
	press(m, "d")
	if got := rt.answers[len(rt.answers)-1]; got != (protocol.ApproveParams{ID: "evil", Approve: false, Digest: "d2"}) {
		t.Errorf("deny sent %+v", got)
	}
}

// /approve and /deny answer any time, with the digest of the status the
// person can see; /mcp <id> shows the approval, the definition and the
// warnings; a refused answer says why and lets the question come back.
func TestApproveCommands(t *testing.T) {
	rt := &approvalRuntime{detail: protocol.ServerDetail{ServerStatus: projectServer("evil", "unknown", "0123456789abcdef", "command: sh"),
		Environment: &protocol.EnvironmentNames{Base: []string{"HOME", "PATH"}, Env: []string{"MODE"}, EnvVars: []string{"GITHUB_TOKEN"}, Unset: []string{"X\x1b[31mY"}}}}
	m := NewModel(rt, &protocol.InitializeResult{Servers: []protocol.ServerStatus{projectServer("evil", "unknown", "0123456789abcdef", "command: sh")}})
	press(m, "l")
	typeLine(m, "/mcp evil")
	for _, want := range []string{"approval:          unknown (digest 0123456789ab…)", "defined in:        /repo/.mcp-host/config.json", "definition:        command: sh", "answer with:       /approve evil or /deny evil", `warning:           "trust": true`,
		"env (base):        HOME, PATH", "env:               MODE", "env_vars:          GITHUB_TOKEN", "env_vars unset:    X"} {
		if !strings.Contains(m.detail, want) {
			t.Errorf("/mcp evil lacks %q:\n%s", want, m.detail)
		}
	}
	if strings.Contains(m.detail, "\x1b") {
		t.Errorf("/mcp evil shows an escape sequence from a variable name:\n%q", m.detail)
	}
	rt.approveE = &protocol.Error{Code: protocol.CodeFailed, Message: "its definition changed since it was shown"}
	out := enter(m, "/approve evil")
	if len(rt.answers) != 1 || rt.answers[0] != (protocol.ApproveParams{ID: "evil", Approve: true, Digest: "0123456789abcdef"}) {
		t.Fatalf("/approve evil sent %+v", rt.answers)
	}
	if !strings.Contains(out, "its definition changed since it was shown") {
		t.Errorf("the refusal is not shown: %q", out)
	}
	m.approvalLater = map[string]string{}
	m.nextApproval()
	if m.approving != "evil" {
		t.Errorf("after a refused answer the question does not come back")
	}
	press(m, "l")
	rt.approveE = nil
	typeLine(m, "/deny nope")
	if len(rt.answers) != 1 {
		t.Errorf("/deny of an unknown server sent %+v", rt.answers)
	}
}

// The approval question shows the project file's text without a byte
// that drives the terminal.
func TestApprovalQuestionIsSafe(t *testing.T) {
	m := NewModel(&approvalRuntime{}, &protocol.InitializeResult{Servers: []protocol.ServerStatus{
		func() protocol.ServerStatus {
			st := projectServer("evil", "unknown", "d"+evil, "command: sh"+evil, "env: A="+evil)
			st.Approval.File += evil
			st.Warnings = append(st.Warnings, "w"+evil)
			return st
		}(),
	}})
	v := m.View()
	if p := screenProblems(v); len(p) > 0 {
		t.Errorf("%v on screen:\n%q", p, v)
	}
	if !strings.Contains(v, "command: sh") {
		t.Errorf("the definition is not shown:\n%s", v)
	}
}

// A server the organization forces is asked about the same way, and the
// question says who provides it.
func TestChatAsksAboutForcedServers(t *testing.T) {
	corp := projectServer("corp", "unknown", "c1", "command: corp-server")
	corp.Source, corp.Approval.File, corp.Warnings = "managed", "/etc/mcp-host/managed.json", nil
	m := NewModel(&approvalRuntime{}, &protocol.InitializeResult{Servers: []protocol.ServerStatus{corp}})
	if v := m.View(); !strings.Contains(v, "Start server corp? Your organization's managed policy provides it: /etc/mcp-host/managed.json") || !strings.Contains(v, "command: corp-server") {
		t.Errorf("the question about a forced server:\n%s", v)
	}
}
