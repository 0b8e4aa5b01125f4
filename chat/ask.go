package chat

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/termsafe"
)

func (m *Model) openAsk(a askMsg) {
	if m.ask != nil {
		// One question at a time: a second one waits for its answer... the
		// runtime asks sequentially, so this is a protocol surprise. Decline.
		m.reply(a, answer{confirm: &protocol.ConfirmResult{Answer: protocol.AnswerDeny}, prompt: &protocol.PromptResult{Cancelled: true}, elicit: &protocol.ElicitResult{Action: "decline"}})
		return
	}
	m.ask = &a
	m.askStage = ""
	m.askDraft = m.input.Value()
	switch {
	case a.prompt != nil:
		m.askStage = "prompt"
		m.addLine("Open this URL in a browser and log in:\n" + shownURL(a.prompt.URL, a.prompt.DisplayForm))
		m.input.Placeholder = "paste the address here (Esc cancels)"
	case a.elicit != nil:
		form := newElicitForm(a.elicit.RequestedSchema)
		if form == nil {
			m.addLine(styleWarn.Render(fmt.Sprintf("%s asked for input this chat cannot show (nested schema): declined", a.elicit.Server)))
			m.reply(a, answer{elicit: &protocol.ElicitResult{Action: "decline"}})
			m.closeAsk()
			return
		}
		if a.elicit.Attempt > 1 {
			// Asked again: the last answer did not fit the server's form.
			var why []string
			for _, f := range a.elicit.Invalid {
				if f.Field == "" {
					why = append(why, f.Message)
				} else {
					why = append(why, f.Field+" "+f.Message)
				}
			}
			m.addLine(styleWarn.Render(fmt.Sprintf("%s asks again (attempt %d): %s", a.elicit.Server, a.elicit.Attempt, strings.Join(why, "; "))))
		}
		m.elicit = form
		m.askStage = "elicit"
		m.input.Placeholder = form.placeholder()
	}
}

func (m *Model) reply(a askMsg, ans answer) {
	select {
	case a.reply <- ans:
	default:
	}
}

func (m *Model) closeAsk() {
	m.ask, m.askStage, m.elicit = nil, "", nil
	m.input.Placeholder = "Ask something, or /help"
}

// answerKey handles the single-key answers of a confirm.
func (m *Model) answerKey(k tea.KeyMsg) tea.Cmd {
	a := *m.ask
	c := a.confirm
	if c == nil {
		return nil
	}
	key := strings.ToLower(k.String())
	if key == "esc" {
		m.cancelAsk("Esc")
		return nil
	}
	if cmd, typed := m.typedDuringAsk(k, c); typed {
		return cmd
	}
	key = strings.TrimPrefix(key, "alt+") // the answers while kept text is there
	var res *protocol.ConfirmResult
	if yesNo(c) {
		what := c.Kind
		if what == "" {
			what = "question"
		}
		switch key {
		case "y", "enter":
			res = &protocol.ConfirmResult{Answer: protocol.AnswerYes}
			m.addLine(styleDim.Render(what + ": yes"))
		case "n":
			res = &protocol.ConfirmResult{Answer: protocol.AnswerNo}
			m.addLine(styleDim.Render(what + ": no"))
		}
	} else {
		answers := map[string]string{"o": protocol.AnswerAllowOnce, "enter": protocol.AnswerAllowOnce, "t": protocol.AnswerAlwaysTool,
			"s": protocol.AnswerAlwaysServer, "d": protocol.AnswerDeny}
		if key == "r" {
			m.askStage = "reason"
			m.input.Placeholder = "reason the model will see (Enter sends, Esc denies without one)"
			return nil
		}
		if ans, ok := answers[key]; ok {
			res = &protocol.ConfirmResult{Answer: ans}
			if ans == protocol.AnswerDeny {
				m.userDenied(c.Tool, "")
			} else {
				m.addLine(styleDim.Render(fmt.Sprintf("%s/%s: %s", c.Tool.Server, c.Tool.Tool, strings.ReplaceAll(ans, "_", " "))))
			}
		}
	}
	if res == nil {
		return nil
	}
	m.reply(a, answer{confirm: res})
	m.closeAsk()
	return nil
}

// submitStage finishes a typed answer: a deny reason, a pasted URL or an
// elicitation field.
func (m *Model) submitStage(text string, cancelled bool) tea.Cmd {
	a := *m.ask
	switch m.askStage {
	case "reason":
		if cancelled || text == "" {
			m.reply(a, answer{confirm: &protocol.ConfirmResult{Answer: protocol.AnswerDeny}})
			m.userDenied(a.confirm.Tool, "")
		} else {
			m.reply(a, answer{confirm: &protocol.ConfirmResult{Answer: protocol.AnswerDenyWithReason, Reason: text}})
			m.userDenied(a.confirm.Tool, text)
		}
	case "prompt":
		if cancelled || text == "" {
			m.reply(a, answer{prompt: &protocol.PromptResult{Cancelled: true}})
		} else {
			m.reply(a, answer{prompt: &protocol.PromptResult{Value: text}})
			m.addLine(styleDim.Render("redirect address pasted"))
		}
	case "elicit":
		if cancelled {
			m.reply(a, answer{elicit: &protocol.ElicitResult{Action: "decline"}})
			break
		}
		f := m.elicit
		if err := f.set(text); err != nil {
			m.addLine(styleErr.Render(err.Error()))
			return nil
		}
		if f.i < len(f.fields) {
			m.input.Placeholder = f.placeholder()
			return nil
		}
		m.reply(a, answer{elicit: &protocol.ElicitResult{Action: "accept", Content: f.values}})
	}
	m.closeAsk()
	return nil
}

func (m *Model) askView() string {
	a := m.ask
	var b strings.Builder
	switch {
	case a.confirm != nil && a.confirm.Kind == protocol.ConfirmKindLogin:
		l := a.confirm.Login
		fmt.Fprintf(&b, "%s\n", a.confirm.Message)
		if l != nil {
			issuer := l.Issuer
			if l.IssuerDisplay != "" {
				issuer = l.IssuerDisplay
			}
			fmt.Fprintf(&b, "authorization server: %s\n", issuer)
		}
		b.WriteString("[y]es, open the login page   [n]o")
	case a.confirm != nil && a.confirm.Kind == protocol.ConfirmKindElicitation && a.confirm.Elicitation != nil:
		e := a.confirm.Elicitation
		fmt.Fprintf(&b, "%s asks you to continue on a page:\n%s\n", e.Server, shownURL(e.URL, e.DisplayForm))
		if e.DisplayHost != "" {
			fmt.Fprintf(&b, "host: %s\n", e.DisplayHost)
		}
		if e.Message != "" {
			b.WriteString(styleDim.Render("its reason, claimed by the server: "+e.Message) + "\n")
		}
		b.WriteString("[y]es, open the page   [n]o")
	case a.confirm != nil && yesNo(a.confirm):
		// A question this chat has no special view for: the host's own
		// title and message, answered yes or no.
		fmt.Fprintf(&b, "%s\n%s\n", a.confirm.Title, a.confirm.Message)
		b.WriteString("[y]es   [n]o")
	case a.confirm != nil:
		// The host's own record of the call first; what the server says
		// about the tool after it, labelled as its claim.
		t := a.confirm.Tool
		fmt.Fprintf(&b, "Allow %s/%s?\n", t.Server, t.Tool)
		fmt.Fprintf(&b, "server %s · tool %s · public name %s\n", t.Server, t.Tool, t.PublicName)
		if t.Changed {
			what := "what changed is not known"
			if len(t.ChangedFields) > 0 {
				what = "changed: " + strings.Join(t.ChangedFields, ", ")
			}
			b.WriteString(styleWarn.Render("This tool's definition CHANGED since you always allowed it ("+what+").") + "\n")
		}
		var claims []string
		if t.Title != "" && t.Title != t.Tool {
			claims = append(claims, fmt.Sprintf("title %q", t.Title))
		}
		if h := hints(t.Annotations); h != "" {
			claims = append(claims, "hints: "+h)
		}
		if len(claims) > 0 {
			b.WriteString(styleDim.Render("claimed by the server, untrusted: "+strings.Join(claims, "; ")) + "\n")
		}
		if d := strings.TrimSpace(t.Description); d != "" {
			lines := strings.Split(d, "\n")
			if len(lines) > maxDescLines {
				lines = append(lines[:maxDescLines], "…")
			}
			b.WriteString(styleDim.Render("description, claimed by the server: "+strings.Join(lines, "\n  ")) + "\n")
		}
		args := t.Arguments
		if lines := strings.Split(args, "\n"); len(lines) > 10 {
			args = strings.Join(lines[:10], "\n") + "\n…"
		}
		b.WriteString("arguments: " + args + "\n")
		if t.ArgumentsTruncated {
			b.WriteString("(arguments cut for display)\n")
		}
		b.WriteString("[o]nce  always this [t]ool  always this [s]erver  [d]eny  deny with [r]eason")
		if m.askStage == "reason" {
			b.WriteString("\n" + styleWarn.Render("type the reason below"))
		}
	case a.prompt != nil:
		fmt.Fprintf(&b, "%s\n%s\n(the URL to open is printed above)", a.prompt.Title, a.prompt.Message)
	case a.elicit != nil:
		fmt.Fprintf(&b, "%s asks: %s\n(Esc declines)", a.elicit.Server, a.elicit.Message)
	}
	return styleBox.Render(wrapHard(strings.TrimRight(b.String(), "\n"), m.width-4))
}

// maxDescLines bounds the lines of a tool's description a confirm shows.
const maxDescLines = 4

// hints lists the hints a server claims about a tool.
func hints(an *protocol.Annotations) string {
	if an == nil {
		return ""
	}
	var h []string
	if an.ReadOnlyHint {
		h = append(h, "read-only")
	}
	if an.DestructiveHint != nil && *an.DestructiveHint {
		h = append(h, "destructive")
	}
	if an.OpenWorldHint != nil && *an.OpenWorldHint {
		h = append(h, "open world")
	}
	return strings.Join(h, ", ")
}

func newElicitForm(schema json.RawMessage) *elicitForm {
	var s struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
			Title       string `json:"title"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	f := &elicitForm{values: map[string]any{}}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := s.Properties[n]
		switch p.Type {
		case "string", "number", "integer", "boolean":
		default:
			return nil
		}
		desc := p.Title
		if desc == "" {
			desc = p.Description
		}
		f.fields = append(f.fields, elicitField{name: n, label: termsafe.LineMax(n, 60), typ: p.Type, desc: termsafe.LineMax(desc, 200)})
	}
	return f
}

func (f *elicitForm) placeholder() string {
	fd := f.fields[f.i]
	return fmt.Sprintf("%s (%s) %s", fd.label, fd.typ, fd.desc)
}

func (f *elicitForm) set(text string) error {
	fd := f.fields[f.i]
	switch fd.typ {
	case "number":
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return fmt.Errorf("%s: want a number", fd.label)
		}
		f.values[fd.name] = v
	case "integer":
		v, err := strconv.Atoi(text)
		if err != nil {
			return fmt.Errorf("%s: want an integer", fd.label)
		}
		f.values[fd.name] = v
	case "boolean":
		v, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("%s: want true or false", fd.label)
		}
		f.values[fd.name] = v
	default:
		f.values[fd.name] = text
	}
	f.i++
	return nil
}

// yesNo reports whether a confirm is answered yes or no: every kind but a
// tool call (which has its own answers), and a tool call without the
// tool's details.
func yesNo(c *protocol.ConfirmParams) bool {
	return c.Kind != protocol.ConfirmKindToolCall || c.Tool == nil
}

// shownURL is what this chat shows of a URL the runtime sent: its display
// form (the host in ASCII form; see protocol.DisplayForm), or the URL
// itself from a runtime that sends none.
func shownURL(url string, d protocol.DisplayForm) string {
	if d.DisplayURL != "" {
		return d.DisplayURL
	}
	return url
}
