package chat

import (
	"context"
	"fmt"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// Servers' prompts are the user's commands (/<server>:<prompt> arg=value)
// and their resources the user's attachments (@<server>:<uri>), both over
// the protocol's prompts.* and resources.* methods; Tab completes them.

// builtinCommands are the chat's own commands, for Tab.
var builtinCommands = []string{"/help", "/mcp", "/tools", "/login", "/logout", "/approve", "/deny", "/reconnect", "/enable", "/disable", "/new", "/quit", "/watch", "/unwatch"}

// maxShownCandidates bounds the completions listed under the input.
const maxShownCandidates = 20

// completeMsg carries the completions of the input as it was (input):
// each candidate replaces input[from:].
type completeMsg struct {
	input      string
	from       int
	candidates []string
	err        error
}

// isPromptCommand reports whether a /command names a server's prompt.
func isPromptCommand(cmd string) bool {
	return strings.HasPrefix(cmd, "/") && strings.Contains(cmd, ":")
}

// splitArgs splits arg=value words; a value may be quoted with " to hold
// spaces.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, has := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, has = !quoted, true
		case r == ' ' && !quoted:
			if has {
				out = append(out, cur.String())
			}
			cur.Reset()
			has = false
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if has {
		out = append(out, cur.String())
	}
	return out
}

// runPrompt gets a server's prompt with its arguments and runs its
// messages as the user's turn; the transcript says where they came from.
func (m *Model) runPrompt(text string) tea.Cmd {
	fields := splitArgs(text)
	server, name, _ := strings.Cut(strings.TrimPrefix(fields[0], "/"), ":")
	args := map[string]string{}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			m.addLine(styleErr.Render(fmt.Sprintf("%q is not arg=value (Tab completes the arguments of %s:%s)", line(f), line(server), line(name))))
			return nil
		}
		args[k] = v
	}
	if m.prim == nil {
		m.addLine(styleErr.Render("the runtime does not offer prompts"))
		return nil
	}
	m.showMCP = false
	m.addLine(styleUser.Render("> " + line(text)))
	if m.run != "" {
		m.addLine(styleWarn.Render("a run is in progress; Esc cancels it"))
		return nil
	}
	conv := m.conv
	m.waiting["start"] = "getting " + line(server) + ":" + line(name)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		got, err := m.prim.PromptsGet(ctx, &protocol.PromptsGetParams{Server: server, Name: name, Arguments: args})
		if err != nil {
			return runStartedMsg{err: err}
		}
		res, err := m.rt.RunStart(ctx, &protocol.RunStartParams{Messages: got.Messages, Conversation: conv})
		return runStartedMsg{res: res, err: err, from: server + ":" + name, messages: got.Messages}
	}
}

// showPromptMessages puts a prompt's messages into the transcript, under
// the prompt they came from.
func (m *Model) showPromptMessages(from string, msgs []protocol.PromptMessage) {
	m.addLine(styleDim.Render("from " + line(from) + ":"))
	for _, pm := range msgs {
		c := pm.Content
		var s string
		switch c.Type {
		case "text":
			s = text(c.Text)
		case "resource":
			s = "[resource " + line(c.URI) + "]"
		default:
			s = fmt.Sprintf("[%s %s]", line(c.Type), line(c.MIMEType))
		}
		m.addLine(styleDim.Render(line(pm.Role) + ": " + s))
	}
}

// attachments finds the @<server>:<uri> words of a message whose server is
// configured: the resources to attach.
func (m *Model) attachments(text string) []protocol.ResourceParams {
	var out []protocol.ResourceParams
	for _, w := range strings.Fields(text) {
		server, uri, ok := strings.Cut(strings.TrimPrefix(w, "@"), ":")
		if !ok || !strings.HasPrefix(w, "@") || uri == "" {
			continue
		}
		if _, known := m.servers[server]; known {
			out = append(out, protocol.ResourceParams{Server: server, URI: uri})
		}
	}
	return out
}

// complete asks for the completions of the input's last word: a command or
// prompt name, a prompt's argument name or value, or an @ resource.
func (m *Model) complete() tea.Cmd {
	input := m.input.Value()
	from := strings.LastIndex(input, " ") + 1
	word := input[from:]
	prim := m.prim
	servers := make([]string, 0, len(m.servers))
	for id := range m.servers {
		servers = append(servers, id)
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		cands, err := candidates(ctx, prim, input, from, word, servers)
		return completeMsg{input: input, from: from, candidates: cands, err: err}
	}
}

// candidates computes the completions of word (input[from:]).
func candidates(ctx context.Context, prim protocol.PrimitivesServer, input string, from int, word string, servers []string) ([]string, error) {
	var out []string
	switch {
	case from == 0 && strings.HasPrefix(word, "/"):
		out = append(out, builtinCommands...)
		if prim != nil {
			l, err := prim.PromptsList(ctx, &protocol.ListParams{})
			if err != nil {
				return out, err
			}
			for _, p := range l.Prompts {
				out = append(out, "/"+p.Server+":"+p.Name)
			}
		}
	case from > 0 && isPromptCommand(strings.Fields(input)[0]) && !strings.HasPrefix(word, "@"):
		if prim == nil {
			return nil, nil
		}
		server, name, _ := strings.Cut(strings.TrimPrefix(strings.Fields(input)[0], "/"), ":")
		k, v, hasValue := strings.Cut(word, "=")
		if !hasValue {
			l, err := prim.PromptsList(ctx, &protocol.ListParams{Server: server})
			if err != nil {
				return nil, err
			}
			for _, p := range l.Prompts {
				if p.Name == name {
					for _, a := range p.Arguments {
						out = append(out, a.Name+"=")
					}
				}
			}
			break
		}
		chosen := map[string]string{}
		for _, f := range splitArgs(input[:from])[1:] {
			if ck, cv, ok := strings.Cut(f, "="); ok {
				chosen[ck] = cv
			}
		}
		r, err := prim.PromptsComplete(ctx, &protocol.CompleteParams{Server: server, Prompt: name, Argument: k, Value: v, Arguments: chosen})
		if err != nil {
			return nil, err
		}
		for _, val := range r.Values {
			out = append(out, k+"="+quoteArg(val))
		}
	case strings.HasPrefix(word, "@"):
		if prim == nil {
			return nil, nil
		}
		return resourceCandidates(ctx, prim, word, servers)
	}
	return out, nil
}

// quoteArg quotes a value with spaces for splitArgs.
func quoteArg(v string) string {
	if strings.Contains(v, " ") {
		return `"` + v + `"`
	}
	return v
}

// resourceCandidates completes @<server>:<uri> from the servers' resource
// lists and templates: a template is offered up to its first variable,
// and once the word reaches it, its variable is completed by the server.
func resourceCandidates(ctx context.Context, prim protocol.PrimitivesServer, word string, servers []string) ([]string, error) {
	var out []string
	server, _, hasServer := strings.Cut(word[1:], ":")
	if !hasServer {
		for _, s := range servers {
			out = append(out, "@"+s+":")
		}
		return out, nil
	}
	rs, err := prim.ResourcesList(ctx, &protocol.ListParams{Server: server})
	if err != nil {
		return nil, err
	}
	for _, r := range rs.Resources {
		out = append(out, "@"+server+":"+r.URI)
	}
	ts, err := prim.ResourcesTemplatesList(ctx, &protocol.ListParams{Server: server})
	if err != nil {
		return out, err
	}
	for _, t := range ts.Templates {
		prefix, rest, ok := strings.Cut(t.URITemplate, "{")
		if !ok {
			out = append(out, "@"+server+":"+t.URITemplate)
			continue
		}
		head := "@" + server + ":" + prefix
		variable, tail, _ := strings.Cut(rest, "}")
		if !strings.HasPrefix(word, head) || tail != "" {
			out = append(out, head)
			continue
		}
		r, err := prim.ResourcesComplete(ctx, &protocol.CompleteParams{Server: server, URITemplate: t.URITemplate, Argument: variable, Value: word[len(head):]})
		if err != nil {
			continue
		}
		for _, v := range r.Values {
			out = append(out, head+v)
		}
	}
	return out, nil
}

// applyCompletion puts the answer of a Tab into the input, if the input is
// still what was completed: the one candidate whole (and a space), or the
// candidates' common prefix and their list under the input.
func (m *Model) applyCompletion(msg completeMsg) {
	if msg.err != nil {
		m.addLine(styleErr.Render(describeErr(msg.err)))
	}
	if m.input.Value() != msg.input {
		return
	}
	word := msg.input[msg.from:]
	var matches []string
	for _, c := range msg.candidates {
		c = line(c)
		if strings.HasPrefix(c, word) {
			matches = append(matches, c)
		}
	}
	sort.Strings(matches)
	matches = dedupe(matches)
	switch len(matches) {
	case 0:
		return
	case 1:
		done := matches[0]
		if !strings.HasSuffix(done, "=") && !strings.HasSuffix(done, ":") && !strings.HasSuffix(done, "/") {
			done += " "
		}
		m.input.SetValue(msg.input[:msg.from] + done)
	default:
		m.input.SetValue(msg.input[:msg.from] + commonPrefix(matches))
		shown := matches
		if len(shown) > maxShownCandidates {
			shown = append(shown[:maxShownCandidates:maxShownCandidates], fmt.Sprintf("… %d more", len(matches)-maxShownCandidates))
		}
		// Under the input, not in the transcript: the list goes once the
		// input changes or is sent.
		m.candidates = &candidateList{input: m.input.Value(), text: strings.Join(shown, "  ")}
	}
	m.input.CursorEnd()
}

// candidateList is the list of completions a Tab showed for input.
type candidateList struct{ input, text string }

// candidatesView is the list of completions under the input, while the
// input is the one they complete; "" otherwise.
func (m *Model) candidatesView() string {
	if m.candidates == nil || m.candidates.input != m.input.Value() {
		return ""
	}
	return styleLines(styleDim, wrapWords(m.candidates.text, m.width))
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func commonPrefix(s []string) string {
	p := s[0]
	for _, v := range s[1:] {
		for !strings.HasPrefix(v, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// resourceUpdatedMsg is a resources.updated notification.
type resourceUpdatedMsg struct {
	p protocol.ResourceUpdatedParams
}

// ResourceUpdated makes the bridge a protocol.ResourceUpdatedHandler.
func (b *bridge) ResourceUpdated(_ context.Context, p *protocol.ResourceUpdatedParams) error {
	b.send(resourceUpdatedMsg{*p})
	return nil
}

// watch subscribes to the changes of @<server>:<uri> (on) or ends that.
func (m *Model) watch(arg string, on bool) tea.Cmd {
	server, uri, ok := strings.Cut(strings.TrimPrefix(arg, "@"), ":")
	if !ok || uri == "" || !strings.HasPrefix(arg, "@") {
		m.addLine(styleErr.Render("usage: /watch @<server>:<uri> (Tab completes it)"))
		return nil
	}
	if m.prim == nil {
		m.addLine(styleErr.Render("the runtime does not offer resources"))
		return nil
	}
	return m.call("watch "+arg, "", callTimeout, func(ctx context.Context) (string, error) {
		p := &protocol.ResourceParams{Server: server, URI: uri}
		if on {
			_, err := m.prim.ResourcesSubscribe(ctx, p)
			return "watching " + line(server) + ":" + line(uri) + " (its changes show here)", err
		}
		_, err := m.prim.ResourcesUnsubscribe(ctx, p)
		return "no longer watching " + line(server) + ":" + line(uri), err
	})
}

// resourceChanged says a watched resource changed, once; repeats are
// counted.
func (m *Model) resourceChanged(p protocol.ResourceUpdatedParams) {
	text := fmt.Sprintf("%s:%s changed (attach it again to send what it says now)", line(p.Server), line(p.URI))
	m.once(p.Server, "updated "+p.URI, text, func(s string) { m.addLine(styleDim.Render(s)) })
}
