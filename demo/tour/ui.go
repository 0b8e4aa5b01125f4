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
	"github.com/mcp-host/mcp-host/termsafe"
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
	// streamed is the answer streamed since the last line the tour
	// printed; shown is what of it was printed, stripped.
	streamed, shown string
}

func (u *tourUI) Confirm(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	t := u.t
	u.endText()
	switch p.Kind {
	case protocol.ConfirmKindLogin:
		t.say("\n[consent] %s", p.Message)
		if p.Login != nil {
			t.say("          authorization server: %s", termsafe.Line(shown(p.Login.Issuer, p.Login.IssuerDisplay)))
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
		// The host's own record of the call first; what the server says
		// about the tool after it, labelled as its claim.
		t.say("\n[permission] run %s/%s?", termsafe.Line(tool.Server), termsafe.Line(tool.Tool))
		if tool.Changed {
			what := "what changed is not known"
			if len(tool.ChangedFields) > 0 {
				what = "changed: " + termsafe.Line(strings.Join(tool.ChangedFields, ", "))
			}
			t.say("             NOTE: this tool's definition CHANGED since you always allowed it (%s)", what)
		}
		if tool.Title != "" && tool.Title != tool.Tool {
			t.say("             title (claimed by the server, untrusted): %q", termsafe.Line(tool.Title))
		}
		if d := firstLine(tool.Description); d != "" {
			t.say("             description (claimed by the server, untrusted): %s", d)
		}
		if a := tool.Annotations; a != nil {
			t.say("             annotations (claimed by the server, untrusted): read-only=%v", a.ReadOnlyHint)
		}
		t.say("             arguments: %s", strings.ReplaceAll(screen(tool.Arguments), "\n", "\n             "))
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
	t.say("        %s", termsafe.Strip(shown(p.URL, p.DisplayURL)))
	v, err := t.askCtx(ctx, "        pasted address:", "")
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
	t.say("[browser] opening the login page (auto-approved, no browser needed): %s", termsafe.LineMax(shown(p.URL, p.DisplayURL), 60))
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
	t.say("[browser] landed on %s (status %d)", termsafe.Strip(resp.Request.URL.Host+resp.Request.URL.Path), resp.StatusCode)
	return &protocol.OpenURLResult{Opened: true}, nil
}

func (u *tourUI) Elicit(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return &protocol.ElicitResult{Action: "decline"}, nil
}

func (u *tourUI) MCPStatus(_ context.Context, p *protocol.MCPStatusParams) error {
	u.mu.Lock()
	if u.states == nil {
		u.states = map[string]string{}
	}
	changed := u.states[p.Server.ID] != p.Server.Status
	u.states[p.Server.ID] = p.Server.Status
	u.mu.Unlock()
	if changed {
		u.endText()
		st := p.Server
		msg := fmt.Sprintf("  [mcp.status] %s → %s", termsafe.Line(st.ID), termsafe.Line(st.Status))
		if st.Status == protocol.StateReady {
			msg += fmt.Sprintf(" (%d tools, protocol %s)", st.Tools, termsafe.Line(st.ProtocolVersion))
		}
		if st.LastError != "" && (st.Status == protocol.StateError || st.Status == protocol.StateAuthRequired) {
			msg += ": " + termsafe.LineMax(st.LastError, 1000)
		}
		u.t.say("%s", msg)
	}
	return nil
}

func (u *tourUI) endText() {
	u.mu.Lock()
	in := u.inText
	u.inText, u.streamed, u.shown = false, "", ""
	u.mu.Unlock()
	if in {
		u.t.say("")
	}
}

func (u *tourUI) AgentEvent(_ context.Context, p *protocol.AgentEventParams) error {
	t := u.t
	switch p.Type {
	case protocol.EventTextDelta:
		// The answer is stripped whole, not delta by delta: an escape
		// sequence may span two deltas. What is new of it is printed.
		u.mu.Lock()
		u.inText = true
		u.streamed += p.Text
		full := screen(u.streamed)
		add, ok := strings.CutPrefix(full, u.shown)
		if !ok {
			add = screen(p.Text)
		}
		u.shown = full
		u.mu.Unlock()
		t.mu.Lock()
		fmt.Fprint(t.o.Out, add)
		t.mu.Unlock()
	case protocol.EventToolCall:
		u.endText()
		t.say("  → tool call %s %s", origin(p.Call), termsafe.LineMax(string(p.Call.Arguments), 200))
	case protocol.EventToolResult:
		if p.Result != nil {
			t.say("  ← %s: %s", origin(p.Call), termsafe.LineMax(resultText(*p.Result), 200))
		}
	case protocol.EventError:
		u.endText()
		t.say("  ! %s", termsafe.LineMax(p.Error, 1000))
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
		u.t.say("  [%s] %s", p.Level, termsafe.LineMax(p.Message, 1000))
	}
	return nil
}

// origin names a call's server and tool as one terminal-safe line.
func origin(c *protocol.ToolCallInfo) string {
	if c == nil {
		return "?"
	}
	return termsafe.Line(c.Server + "/" + c.Tool)
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
// then a note, then the answer, each following what the person allowed.
func demoScript(tools []protocol.ToolInfo) ([]scripted.Step, error) {
	var names []string
	for _, w := range wanted {
		info, ok := lookup(tools, w.server, w.tool)
		if !ok {
			return nil, fmt.Errorf("demo: server %q has no tool %q", w.server, w.tool)
		}
		names = append(names, info.PublicName)
	}
	// The answer says what happened, as the person decided: each step
	// after a tool result has a version for a denied call (the result
	// core gives the model then), and for a call that failed otherwise.
	const denied, scriptedNote = "The user denied this tool call", " (This turn was scripted: pass --model to use a real model.)"
	return []scripted.Step{
		{Text: "Let me check the weather and the time.", Calls: []scripted.Call{
			{Name: names[0], Args: wanted[0].args}, {Name: names[1], Args: wanted[1].args},
		}},
		{WhenResultContains: denied, Text: "You denied one of the lookups, so I have not got both the weather in Paris and the local time, and I am not saving a note of half of it." + scriptedNote},
		{Calls: []scripted.Call{{Name: names[2], Args: wanted[2].args}}},
		{WhenResultContains: "saved note", Text: "Done: I looked up the weather in Paris and the local time, and saved a note." + scriptedNote},
		{WhenResultContains: denied, Text: "I looked up the weather in Paris and the local time; I did not save a note, as you decided." + scriptedNote},
		{Text: "I looked up the weather in Paris and the local time, but the note could not be saved (see the tool's result above)." + scriptedNote},
	}, nil
}

// shown is what the tour prints of a URL: the display form the runtime
// sent beside it (protocol.DisplayForm: the host in ASCII form), or the
// URL itself when none came.
func shown(raw, display string) string {
	if display != "" {
		return display
	}
	return raw
}
