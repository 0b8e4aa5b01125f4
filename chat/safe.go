package chat

import (
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/termsafe"
)

// Everything the runtime sends may quote an MCP server or the model (tool
// names, titles, descriptions, results, errors, server info, stderr, the
// login's issuer and URL, elicitation questions), and neither may drive
// the terminal. The chat cleans each message once, where it enters
// [Model.update] (see clean), with the one sanitizer, [termsafe]; the
// streamed answer, which can split an escape sequence across deltas, is
// cleaned whole when it is drawn.

// Bounds of what the chat shows, in runes.
const (
	maxLine   = 1000 // one-line messages: errors, log lines, problems
	maxDetail = 8000 // multi-line text: stderr tail, arguments, results
)

// line renders untrusted text as one bounded line.
func line(s string) string { return termsafe.LineMax(s, maxLine) }

// text renders untrusted text keeping its lines, bounded.
func text(s string) string { return termsafe.TextMax(s, maxDetail) }

// uncut renders untrusted text as one line that must not be cut, such as
// a URL the person copies.
func uncut(s string) string { return termsafe.Strip(s) }

// clean returns msg with every string in it made safe to show.
func clean(msg any) any {
	switch m := msg.(type) {
	case statusMsg:
		cleanStatus(&m.p.Server)
		return m
	case runMsg:
		m.p.Status, m.p.Error, m.p.Text = line(m.p.Status), line(m.p.Error), text(m.p.Text)
		return m
	case eventMsg:
		cleanEvent(&m.p)
		return m
	case logMsg:
		m.p.Level, m.p.Message, m.p.Server = line(m.p.Level), line(m.p.Message), line(m.p.Server)
		return m
	case askMsg:
		if m.confirm != nil {
			c := *m.confirm
			cleanConfirm(&c)
			m.confirm = &c
		}
		if m.prompt != nil {
			p := *m.prompt
			p.Title, p.Message, p.URL = line(p.Title), text(p.Message), uncut(p.URL)
			p.DisplayURL, p.DisplayHost = uncut(p.DisplayURL), line(p.DisplayHost)
			m.prompt = &p
		}
		if m.elicit != nil {
			e := *m.elicit
			// RequestedSchema stays raw: its property names are the keys of
			// the answer; newElicitForm cleans what it shows of it.
			e.Server, e.Message, e.URL = line(e.Server), text(e.Message), uncut(e.URL)
			if len(e.Invalid) > 0 {
				inv := make([]protocol.ElicitFieldError, len(e.Invalid))
				for i, f := range e.Invalid {
					inv[i] = protocol.ElicitFieldError{Field: line(f.Field), Message: line(f.Message)}
				}
				e.Invalid = inv
			}
			m.elicit = &e
		}
		return m
	}
	return msg
}

func cleanStatus(st *protocol.ServerStatus) {
	for _, s := range []*string{&st.ID, &st.Transport, &st.Source, &st.Status, &st.ProtocolVersion,
		&st.ServerName, &st.ServerVersion, &st.SessionID, &st.LastError} {
		*s = line(*s)
	}
	if st.Auth != nil {
		a := *st.Auth
		a.Detail, a.Storage = line(a.Detail), line(a.Storage)
		st.Auth = &a
	}
	if st.Policy != nil {
		p := *st.Policy
		p.File, p.Rule, p.Reason = line(p.File), line(p.Rule), line(p.Reason)
		st.Policy = &p
	}
	if st.Approval != nil {
		a := *st.Approval
		a.Decision, a.File, a.Digest = line(a.Decision), line(a.File), line(a.Digest)
		a.Fields = cleanLines(a.Fields)
		st.Approval = &a
	}
	st.Warnings = cleanLines(st.Warnings)
	if sb := st.Sandbox; sb != nil {
		st.Sandbox = &protocol.SandboxStatus{Status: line(sb.Status), Detail: line(sb.Detail), Summary: line(sb.Summary), Protections: cleanLines(sb.Protections)}
	}
}

// cleanLines returns a cleaned copy of lines.
func cleanLines(lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = line(l)
	}
	return out
}

func cleanDetail(d *protocol.ServerDetail) {
	cleanStatus(&d.ServerStatus)
	d.Stderr, d.ServerLog, d.URL, d.Command = text(d.Stderr), text(d.ServerLog), uncut(d.URL), line(d.Command)
	d.DisplayURL = uncut(d.DisplayURL)
	d.Instructions = text(d.Instructions)
	if n := d.Environment; n != nil {
		d.Environment = &protocol.EnvironmentNames{Base: cleanLines(n.Base), Env: cleanLines(n.Env), EnvVars: cleanLines(n.EnvVars), Unset: cleanLines(n.Unset)}
	}
	for i := range d.ToolList {
		cleanTool(&d.ToolList[i])
	}
}

func cleanTool(t *protocol.ToolInfo) {
	t.PublicName, t.Server, t.Tool, t.Title, t.Description = line(t.PublicName), line(t.Server), line(t.Tool), line(t.Title), line(t.Description)
}

// cleanEvent cleans an agent event, all but the streamed text (see
// Model.streamText).
func cleanEvent(e *protocol.AgentEventParams) {
	e.Type, e.Phase, e.Decision, e.Reason, e.Error = line(e.Type), line(e.Phase), line(e.Decision), line(e.Reason), line(e.Error)
	if e.Type != protocol.EventTextDelta {
		e.Text = text(e.Text)
	}
	if e.Call != nil {
		c := *e.Call
		// Arguments stay raw JSON; compact cleans what it shows.
		c.PublicName, c.Server, c.Tool = line(c.PublicName), line(c.Server), line(c.Tool)
		e.Call = &c
	}
	if e.Result != nil {
		r := *e.Result
		r.Content = make([]protocol.Content, len(e.Result.Content))
		for i, c := range e.Result.Content {
			c.Type, c.Text, c.MIMEType, c.URI, c.Name, c.Title = line(c.Type), text(c.Text), line(c.MIMEType), line(c.URI), line(c.Name), line(c.Title)
			r.Content[i] = c
		}
		e.Result = &r
	}
}

func cleanConfirm(c *protocol.ConfirmParams) {
	c.Kind, c.Title, c.Message = line(c.Kind), line(c.Title), text(c.Message)
	if c.Tool != nil {
		t := *c.Tool
		t.Server, t.Tool, t.PublicName, t.Title, t.Arguments = line(t.Server), line(t.Tool), line(t.PublicName), termsafe.Line(t.Title), text(t.Arguments)
		t.Description, t.ChangedFields = text(t.Description), cleanLines(t.ChangedFields)
		c.Tool = &t
	}
	if c.Login != nil {
		l := *c.Login
		l.Server, l.Issuer, l.URL = line(l.Server), line(l.Issuer), uncut(l.URL)
		l.IssuerDisplay, l.IssuerHost = line(l.IssuerDisplay), line(l.IssuerHost)
		c.Login = &l
	}
	if c.Elicitation != nil {
		e := *c.Elicitation
		e.Server, e.URL, e.Message, e.ElicitationID = line(e.Server), uncut(e.URL), text(e.Message), line(e.ElicitationID)
		e.DisplayURL, e.DisplayHost = uncut(e.DisplayURL), line(e.DisplayHost)
		c.Elicitation = &e
	}
}
