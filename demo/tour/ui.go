package tour

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcp-host/mcp-host/core/scripted"
	"github.com/mcp-host/mcp-host/protocol"
)

// tourUI is the demo's side of the protocol: it shows what the runtime
// reports and answers its questions (from the person, or automatically).
type tourUI struct {
	t *tour

	mu     sync.Mutex
	final  map[string]protocol.RunStatusParams
	wake   chan struct{}
	states map[string]string
	inText bool
}

func (u *tourUI) Confirm(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	t := u.t
	u.endText()
	switch p.Kind {
	case protocol.ConfirmKindLogin:
		t.say("\n[consent] %s", p.Message)
		if p.Login != nil {
			t.say("          authorization server: %s", p.Login.Issuer)
		}
		a, err := t.ask("          Log in now? [Y/n]", "y")
		if err != nil {
			return nil, err
		}
		if a == "" || strings.HasPrefix(strings.ToLower(a), "y") {
			return &protocol.ConfirmResult{Answer: protocol.AnswerYes}, nil
		}
		return &protocol.ConfirmResult{Answer: protocol.AnswerNo}, nil
	default:
		tool := p.Tool
		if tool == nil {
			return &protocol.ConfirmResult{Answer: protocol.AnswerDeny}, nil
		}
		t.say("\n[permission] run %s/%s?", tool.Server, tool.Tool)
		if tool.Title != "" {
			t.say("             title: %s", tool.Title)
		}
		t.say("             arguments: %s", strings.ReplaceAll(tool.Arguments, "\n", "\n             "))
		if a := tool.Annotations; a != nil {
			t.say("             annotations (claimed by the server, untrusted): read-only=%v", a.ReadOnlyHint)
		}
		if tool.Changed {
			t.say("             NOTE: this tool's definition changed since you always allowed it")
		}
		a, err := t.ask("             [o]nce / always this [t]ool / always this [s]erver / [d]eny / deny with [r]eason?", "o")
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(strings.TrimSpace(a)) {
		case "", "o", "once", "y", "yes":
			return &protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}, nil
		case "t":
			return &protocol.ConfirmResult{Answer: protocol.AnswerAlwaysTool}, nil
		case "s":
			return &protocol.ConfirmResult{Answer: protocol.AnswerAlwaysServer}, nil
		case "r":
			reason, err := t.ask("             reason for the model:", "")
			if err != nil {
				return nil, err
			}
			return &protocol.ConfirmResult{Answer: protocol.AnswerDenyWithReason, Reason: reason}, nil
		}
		return &protocol.ConfirmResult{Answer: protocol.AnswerDeny}, nil
	}
}

func (u *tourUI) Prompt(ctx context.Context, p *protocol.PromptParams) (*protocol.PromptResult, error) {
	t := u.t
	t.say("\n[login] %s", p.Message)
	t.say("        %s", p.URL)
	v, err := t.ask("        pasted address:", "")
	if err != nil {
		return nil, err
	}
	if v == "" {
		return &protocol.PromptResult{Cancelled: true}, nil
	}
	return &protocol.PromptResult{Value: v}, nil
}

// OpenURL is only declared with --auto-approve: the demo's authorization
// server approves at once, so following its redirects like a browser lands
// on the runtime's loopback callback and completes the login.
func (u *tourUI) OpenURL(ctx context.Context, p *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	t := u.t
	t.say("[browser] opening the login page (auto-approved, no browser needed): %s…", cut(p.URL, 60))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return &protocol.OpenURLResult{Opened: false}, nil
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	t.say("[browser] landed on %s (status %d)", resp.Request.URL.Host+resp.Request.URL.Path, resp.StatusCode)
	return &protocol.OpenURLResult{Opened: true}, nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func (u *tourUI) Elicit(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return &protocol.ElicitResult{Action: "decline"}, nil
}

func (u *tourUI) MCPStatus(_ context.Context, p *protocol.MCPStatusParams) error {
	u.mu.Lock()
	if u.states == nil {
		u.states = map[string]string{}
	}
	changed := u.states[p.Server.ID] != p.Server.State
	u.states[p.Server.ID] = p.Server.State
	u.mu.Unlock()
	if changed {
		u.endText()
		msg := fmt.Sprintf("  [mcp.status] %s → %s", p.Server.ID, p.Server.State)
		if p.Server.State == protocol.StateReady {
			msg += fmt.Sprintf(" (%d tools, protocol %s)", p.Server.Tools, p.Server.ProtocolVersion)
		}
		if p.Server.LastError != "" && (p.Server.State == protocol.StateError || p.Server.State == protocol.StateAuthRequired) {
			msg += ": " + p.Server.LastError
		}
		u.t.say("%s", msg)
	}
	return nil
}

func (u *tourUI) endText() {
	u.mu.Lock()
	in := u.inText
	u.inText = false
	u.mu.Unlock()
	if in {
		u.t.say("")
	}
}

func (u *tourUI) AgentEvent(_ context.Context, p *protocol.AgentEventParams) error {
	t := u.t
	switch p.Type {
	case protocol.EventTextDelta:
		u.mu.Lock()
		u.inText = true
		u.mu.Unlock()
		t.mu.Lock()
		fmt.Fprint(t.o.Out, p.Text)
		t.mu.Unlock()
	case protocol.EventToolCall:
		u.endText()
		t.say("  → tool call %s/%s %s", p.Call.Server, p.Call.Tool, string(p.Call.Arguments))
	case protocol.EventToolResult:
		if p.Result != nil {
			t.say("  ← %s/%s: %s", p.Call.Server, p.Call.Tool, cut(resultText(*p.Result), 200))
		}
	case protocol.EventError:
		u.endText()
		t.say("  ! %s", p.Error)
	}
	return nil
}

func (u *tourUI) RunStatus(_ context.Context, p *protocol.RunStatusParams) error {
	if p.Status == protocol.RunRunning {
		return nil
	}
	u.mu.Lock()
	if u.final == nil {
		u.final = map[string]protocol.RunStatusParams{}
	}
	u.final[p.RunID] = *p
	if u.wake != nil {
		close(u.wake)
		u.wake = nil
	}
	u.mu.Unlock()
	return nil
}

func (u *tourUI) waitRun(ctx context.Context, id string) (protocol.RunStatusParams, error) {
	for {
		u.mu.Lock()
		st, ok := u.final[id]
		if u.wake == nil {
			u.wake = make(chan struct{})
		}
		wake := u.wake
		u.mu.Unlock()
		if ok {
			u.endText()
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-wake:
		}
	}
}

func (u *tourUI) Log(_ context.Context, p *protocol.LogParams) error {
	if p.Level == "warn" || p.Level == "error" {
		u.t.say("  [%s] %s", p.Level, p.Message)
	}
	return nil
}

// demoTool is a tool call the demo makes.
type demoTool struct {
	server, tool string
	args         json.RawMessage
}

// wanted are the demo servers' tools the tour uses, in order of preference.
var wanted = []demoTool{
	{"notes", "get_weather", json.RawMessage(`{"city":"Paris"}`)},
	{"local", "time_now", json.RawMessage(`{}`)},
	{"notes", "add_note", json.RawMessage(`{"text":"Paris: check the weather before leaving"}`)},
}

func lookup(tools []protocol.ToolInfo, server, tool string) (protocol.ToolInfo, bool) {
	for _, t := range tools {
		if t.Server == server && t.Tool == tool {
			return t, true
		}
	}
	return protocol.ToolInfo{}, false
}

// demoCall is the direct tool call of the tour.
func demoCall(tools []protocol.ToolInfo) (demoTool, error) {
	w := wanted[0]
	if _, ok := lookup(tools, w.server, w.tool); !ok {
		return demoTool{}, fmt.Errorf("demo: server %q has no tool %q", w.server, w.tool)
	}
	return w, nil
}

// demoScript is the scripted agent turn: two tools on two servers at once,
// then a note, then the answer.
func demoScript(tools []protocol.ToolInfo) ([]scripted.Step, error) {
	var names []string
	for _, w := range wanted {
		info, ok := lookup(tools, w.server, w.tool)
		if !ok {
			return nil, fmt.Errorf("demo: server %q has no tool %q", w.server, w.tool)
		}
		names = append(names, info.PublicName)
	}
	return []scripted.Step{
		{Text: "Let me check the weather and the time.", Calls: []scripted.Call{
			{Name: names[0], Args: wanted[0].args}, {Name: names[1], Args: wanted[1].args},
		}},
		{Calls: []scripted.Call{{Name: names[2], Args: wanted[2].args}}},
		{Text: "Done: I looked up the weather in Paris and the local time, and saved a note. (This turn was scripted: pass --model to use a real model.)"},
	}, nil
}
