package chat

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/termsafe"
)

// evil is what a hostile server (or a model it talked into it) puts in
// every string: set the pane title, move up and erase, ring, reverse the
// text, hide a character, an 8-bit CSI and invalid UTF-8.
const evil = "\x1b]0;PWNED\x07\x1b[1A\x1b[2K\a\u202E\u200B\u009b2J\xff"

// hostileRuntime answers /mcp <id>, /tools, /login and /reconnect with
// server-controlled text full of escapes.
type hostileRuntime struct{ protocol.Server }

func (hostileRuntime) MCPGet(context.Context, *protocol.ServerParams) (*protocol.MCPGetResult, error) {
	return &protocol.MCPGetResult{Server: protocol.ServerDetail{
		ServerStatus: hostileStatus("bad"),
		Stderr:       "line one" + evil + "\nline two" + evil + "\n",
		Command:      "hostile-text" + evil,
	}}, nil
}

func (hostileRuntime) ToolsList(context.Context, *protocol.ToolsListParams) (*protocol.ToolsListResult, error) {
	return &protocol.ToolsListResult{Tools: []protocol.ToolInfo{{
		PublicName: "mcp_bad_x" + evil, Server: "bad" + evil, Tool: "x" + evil, Title: "T" + evil, Description: "desc" + evil,
	}}}, nil
}

func (hostileRuntime) MCPLogin(context.Context, *protocol.LoginParams) (*protocol.ServerResult, error) {
	return &protocol.ServerResult{Server: hostileStatus("bad")}, nil
}

func (hostileRuntime) MCPReconnect(context.Context, *protocol.ServerParams) (*protocol.ServerResult, error) {
	return nil, &protocol.Error{Code: protocol.CodeFailed, Message: "connect: server said " + evil}
}

func (hostileRuntime) RunStart(context.Context, *protocol.RunStartParams) (*protocol.RunStartResult, error) {
	return &protocol.RunStartResult{RunID: "r1", Conversation: "c1"}, nil
}

func hostileStatus(id string) protocol.ServerStatus {
	return protocol.ServerStatus{
		ID: id, Transport: "stdio" + evil, Source: "project" + evil, Enabled: true, Status: protocol.StateError,
		ServerName: "srv" + evil, ServerVersion: "1" + evil, ProtocolVersion: "2025" + evil, SessionID: "s" + evil,
		LastError: "boom" + evil + "\nsecond line", Auth: &protocol.AuthStatus{Detail: "detail" + evil, Storage: "file" + evil},
		Approval: &protocol.ApprovalStatus{Decision: "unknown" + evil, File: "f" + evil, Digest: "d" + evil, Fields: []string{"command: x" + evil}},
		Warnings: []string{"warn" + evil},
	}
}

// sgr is the styling lipgloss itself may add.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// screenProblems lists what in s could act on a terminal or hide text.
func screenProblems(s string) []string {
	s = sgr.ReplaceAllString(s, "")
	var out []string
	for _, r := range s {
		if r == 0x1b || r == 0x07 || termsafe.IsUnsafe(r) {
			out = append(out, fmt.Sprintf("%U", r))
		}
	}
	if strings.Contains(s, "PWNED") {
		out = append(out, "PWNED")
	}
	return out
}

// TestHostileTextNeverReachesTheScreen drives the chat through every
// message that carries server-controlled text and checks everything it
// prints or draws.
func TestHostileTextNeverReachesTheScreen(t *testing.T) {
	m := NewModel(hostileRuntime{}, &protocol.InitializeResult{
		Capabilities: protocol.RuntimeCapabilities{Runs: true, Model: "m" + evil},
		Servers:      []protocol.ServerStatus{hostileStatus("bad"), {ID: "conn", Status: protocol.StateConnecting}},
		Problems:     []string{"project config: " + evil},
	})
	var screen strings.Builder
	look := func(step string) {
		t.Helper()
		text := strings.Join(m.out, "\n") + "\n" + m.View()
		m.out = nil
		if p := screenProblems(text); len(p) > 0 {
			t.Errorf("%s: %v on screen:\n%q", step, p, text)
		}
		screen.WriteString(text + "\n")
	}
	step := func(name string, msg tea.Msg) {
		t.Helper()
		_, cmd := m.update(msg)
		look(name)
		// Run what a command started (runtime calls), as the program would.
		if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyEnter && cmd != nil {
			if res := cmd(); res != nil {
				m.update(res)
				look(name + " (answer)")
			}
		}
	}
	typeIn := func(s string) {
		t.Helper()
		for _, r := range s {
			m.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
		step(s, tea.KeyMsg{Type: tea.KeyEnter})
	}
	look("start")
	for _, st := range m.servers {
		if st.Approval == nil {
			continue
		}
		// Not drawn yet; whoever draws them gets them clean.
		if p := screenProblems(strings.Join(append(append([]string{st.Approval.Decision, st.Approval.File, st.Approval.Digest}, st.Approval.Fields...), st.Warnings...), "\n")); len(p) > 0 {
			t.Errorf("approval or warnings of %s kept %v", st.ID, p)
		}
	}
	typeIn("/mcp")
	typeIn("/mcp bad")
	typeIn("/tools")
	typeIn("/login bad")
	typeIn("/reconnect bad")
	step("status", statusMsg{protocol.MCPStatusParams{Server: hostileStatus("other")}})
	step("log", logMsg{protocol.LogParams{Level: "warn", Message: "log " + evil}})

	typeIn("go")
	call := &protocol.ToolCallInfo{ID: "1", PublicName: "mcp_bad_x" + evil, Server: "bad" + evil, Tool: "x" + evil, Arguments: []byte("{\"a\":\"\u202Eb\"}")}
	// An escape sequence split across two deltas.
	step("delta 1", eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: "Hello \x1b]0;PW"}})
	step("delta 2", eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: "NED\x07 world" + evil}})
	step("tool call", eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: call}})
	step("result", eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolResult, Call: call, Result: &protocol.ToolResult{
		Content: []protocol.Content{{Type: "text", Text: "result" + evil}, {Type: "image" + evil}}, IsError: true,
	}}})
	step("denied", eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventPermission, Phase: "decided", Decision: "deny" + evil, Reason: "why" + evil, Call: call}})
	step("error event", eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventError, Error: "err" + evil}})

	reply := make(chan answer, 4)
	yes := true
	step("confirm", askMsg{reply: reply, confirm: &protocol.ConfirmParams{
		Kind: protocol.ConfirmKindToolCall, Title: "Allow?" + evil, Message: "msg" + evil,
		Tool: &protocol.ConfirmTool{Server: "bad" + evil, Tool: "x" + evil, PublicName: "mcp_bad_x" + evil, Title: "\x1b[1A\x1b[2K  tool:   read_readme",
			Arguments: "{\n  \"a\": \"" + evil + "\"\n}", Changed: true, Annotations: &protocol.Annotations{Untrusted: true, DestructiveHint: &yes},
			Description: "Reads it." + evil + "\nReally.", ChangedFields: []string{"title" + evil}},
	}})
	step("confirm answered", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'o'}})
	step("login confirm", askMsg{reply: reply, confirm: &protocol.ConfirmParams{
		Kind: protocol.ConfirmKindLogin, Message: "log in to bad?" + evil, Login: &protocol.ConfirmLogin{Server: "bad" + evil, Issuer: "https://as" + evil, URL: "https://as/authorize?x=" + evil},
	}})
	step("login answered", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}})
	step("prompt", askMsg{reply: reply, prompt: &protocol.PromptParams{Title: "Paste" + evil, Message: "the address" + evil, URL: "https://as/authorize?x=1" + evil}})
	step("prompt cancelled", tea.KeyMsg{Type: tea.KeyEsc})
	step("elicit", askMsg{reply: reply, elicit: &protocol.ElicitParams{Server: "bad" + evil, Message: "Your name?" + evil,
		RequestedSchema: []byte(`{"type":"object","properties":{"n\u001b]0;PWNED\u0007":{"type":"integer","title":"your \u202e name\u001b[2J"}}}`)}})
	typeIn("not a number")
	step("elicit nested", askMsg{reply: reply, elicit: &protocol.ElicitParams{Server: "bad" + evil, RequestedSchema: []byte(`{"properties":{"o":{"type":"object"}}}`)}})
	step("run failed", runMsg{protocol.RunStatusParams{RunID: "r1", Status: "failed" + evil, Error: "run err" + evil}})
	step("call error", callDoneMsg{key: "x", err: errors.New("plain error" + evil)})

	// The visible parts are shown: the text was rendered, not hidden.
	s := screen.String()
	for _, want := range []string{
		"config: project config:", "boom", "line one", "line two", "implementation:    srv", "desc", "Hello  world", "result", "why", "err",
		`"  tool:   read_readme"`, "Allow bad", "Reads it.", "changed: title", "https://as", "Your name?", "run err", "plain error", "connect: server said",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("screen:\n%s", s)
	}
}
