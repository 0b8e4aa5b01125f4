// Package resources turns what MCP servers offer besides tools — resources,
// resource templates, prompts and skills (SEP-2640) — into local core tools
// the model can call: mcp_resources_list, mcp_resource_read,
// mcp_prompts_list, mcp_prompt_get, mcp_skills_list, mcp_skill_load and
// mcp_skill_read. Only servers that declare the capability take part, and a
// tool with no such server is not offered. Every call that reaches a server
// passes the permission gate first, as a call of a tool named after the
// method ("resources/read", "prompts/get", "skills/load", …) on that
// server.
//
// It must not import runtime or runtime/serve.
package resources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/mcp-host/mcp-host/runtime/skills"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Source is one ready server.
type Source struct {
	Server  string
	Session *session.Session
	// NoPrompts leaves the server's prompts out of the model's tools: the
	// UI offers them to the user, whose they are.
	NoPrompts bool
}

// Tools returns the local tools for sources, each call gated by gate.
// maxOut bounds result text (0 means adapter.DefaultMaxOutputBytes).
func Tools(sources []Source, gate *permission.Gate, maxOut int) []core.Tool {
	if maxOut <= 0 {
		maxOut = adapter.DefaultMaxOutputBytes
	}
	b := &builder{gate: gate, maxOut: maxOut, byServer: map[string]*session.Session{}, loaded: map[string]*skills.Skill{}}
	var res, prompts, skl []string
	for _, s := range sources {
		caps := s.Session.Info().Capabilities
		if caps == nil {
			continue
		}
		b.byServer[s.Server] = s.Session
		if caps.Resources != nil {
			res = append(res, s.Server)
		}
		if caps.Prompts != nil && !s.NoPrompts {
			prompts = append(prompts, s.Server)
		}
		if _, ok := caps.Extensions[skills.ExtensionID]; ok {
			skl = append(skl, s.Server)
		}
	}
	var out []core.Tool
	if len(res) > 0 {
		out = append(out,
			b.tool("mcp_resources_list", "resources/list", "List the resources (files, documents, data) that MCP servers offer. Servers: "+strings.Join(res, ", ")+".", serverOnly(res), b.resourcesList(res)),
			b.tool("mcp_resource_templates_list", "resources/templates/list", "List the URI templates of resources that MCP servers can produce on demand. Servers: "+strings.Join(res, ", ")+".", serverOnly(res), b.templatesList(res)),
			b.tool("mcp_resource_read", "resources/read", "Read one resource of an MCP server by its URI.", schema(res, `"uri":{"type":"string","description":"the resource URI"}`, "uri"), b.resourceRead),
		)
	}
	if len(prompts) > 0 {
		out = append(out,
			b.tool("mcp_prompts_list", "prompts/list", "List the prompt templates that MCP servers offer. Servers: "+strings.Join(prompts, ", ")+".", serverOnly(prompts), b.promptsList(prompts)),
			b.tool("mcp_prompt_get", "prompts/get", "Render one prompt template of an MCP server with its arguments.", schema(prompts, `"name":{"type":"string"},"arguments":{"type":"object","additionalProperties":{"type":"string"}}`, "name"), b.promptGet),
		)
	}
	if len(skl) > 0 {
		out = append(out,
			b.tool("mcp_skills_list", "skills/list", "List the skills (packaged instructions) that MCP servers offer: names and descriptions only. Servers: "+strings.Join(skl, ", ")+".", serverOnly(skl), b.skillsList(skl)),
			b.tool("mcp_skill_load", "skills/load", "Load one skill: its verified instructions and the list of its supporting files.", schema(skl, `"uri":{"type":"string","description":"the skill's SKILL.md URI from mcp_skills_list"}`, "uri"), b.skillLoad),
			b.tool("mcp_skill_read", "skills/read", "Read one supporting file of a loaded skill, verified against the skill's listing.", schema(skl, `"skill":{"type":"string","description":"the skill's SKILL.md URI"},"uri":{"type":"string","description":"the file's URI"}`, "skill", "uri"), b.skillRead),
		)
	}
	return out
}

func serverOnly(servers []string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","enum":` + mustJSON(servers) + `,"description":"only this server (default: all)"}},"additionalProperties":false}`)
}

func schema(servers []string, props string, required ...string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","enum":` + mustJSON(servers) + `},` + props + `},"required":` + mustJSON(append([]string{"server"}, required...)) + `,"additionalProperties":false}`)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type builder struct {
	gate     *permission.Gate
	maxOut   int
	byServer map[string]*session.Session

	mu     sync.Mutex
	loaded map[string]*skills.Skill // server + "\x00" + skill URI
}

// args are the union of the tools' arguments.
type args struct {
	Server    string            `json:"server"`
	URI       string            `json:"uri"`
	Name      string            `json:"name"`
	Skill     string            `json:"skill"`
	Arguments map[string]string `json:"arguments"`
}

type handler func(ctx context.Context, a args) (*core.Result, error)

// localTool is one of the package's core tools.
type localTool struct {
	name, method, desc string
	schema             json.RawMessage
	b                  *builder
	h                  handler
}

func (b *builder) tool(name, method, desc string, schema json.RawMessage, h handler) core.Tool {
	return &localTool{name: name, method: method, desc: desc, schema: schema, b: b, h: h}
}

func (t *localTool) Name() string            { return t.name }
func (t *localTool) Description() string     { return t.desc }
func (t *localTool) Schema() json.RawMessage { return t.schema }

// Call gates the call on each server it reaches, then runs it.
func (t *localTool) Call(ctx context.Context, raw json.RawMessage) (*core.Result, error) {
	var a args
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return core.ErrorResult("invalid arguments: " + err.Error()), nil
		}
	}
	if a.Server != "" {
		if _, ok := t.b.byServer[a.Server]; !ok {
			return core.ErrorResult(fmt.Sprintf("no ready server %q offers this", a.Server)), nil
		}
		if r := t.b.check(ctx, a.Server, t.method, t.desc, t.schema, raw); r != nil {
			return r, nil
		}
	}
	return t.h(ctx, a)
}

// check asks the gate about a call on server; a non-nil result is the
// refusal the model sees.
func (b *builder) check(ctx context.Context, server, method, desc string, schema, raw json.RawMessage) *core.Result {
	def := &mcp.Tool{Name: method, Description: desc, InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	t, err := adapter.New(server, def, noCaller{}, adapter.Options{})
	if err != nil {
		return core.ErrorResult(err.Error())
	}
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	v, err := b.gate.Check(ctx, t, raw)
	if err != nil {
		return core.ErrorResult("permission: " + err.Error())
	}
	if !v.Allow {
		return core.ErrorResult(v.Reason)
	}
	return nil
}

// noCaller: the synthetic adapters exist only to be checked.
type noCaller struct{}

func (noCaller) CallTool(context.Context, string, any) (*mcp.CallToolResult, error) {
	return nil, errors.New("not callable")
}

// each runs fn for the named server, or for every server of servers,
// gating each, and joins the text.
func (b *builder) each(ctx context.Context, a args, method string, servers []string, fn func(ctx context.Context, server string, s *session.Session) (string, error)) (*core.Result, error) {
	targets := servers
	if a.Server != "" {
		targets = []string{a.Server}
	}
	var parts []string
	for _, srv := range targets {
		if a.Server == "" {
			if r := b.check(ctx, srv, method, "list "+method, nil, nil); r != nil {
				parts = append(parts, fmt.Sprintf("[%s] %s", srv, core.RenderResult(r)))
				continue
			}
		}
		text, err := fn(ctx, srv, b.byServer[srv])
		if err != nil {
			parts = append(parts, fmt.Sprintf("[%s] error: %v", srv, err))
			continue
		}
		parts = append(parts, fmt.Sprintf("[%s]\n%s", srv, text))
	}
	return b.text(strings.Join(parts, "\n\n")), nil
}

// text bounds a text result.
func (b *builder) text(s string) *core.Result {
	if len(s) > b.maxOut {
		cut := len(s) - b.maxOut
		s = s[:b.maxOut] + fmt.Sprintf("\n[output cut: %d more bytes not shown]", cut)
	}
	return core.TextResult(s)
}

func (b *builder) resourcesList(servers []string) handler {
	return func(ctx context.Context, a args) (*core.Result, error) {
		return b.each(ctx, a, "resources/list", servers, func(ctx context.Context, _ string, s *session.Session) (string, error) {
			rs, err := s.ListResources(ctx)
			var lines []string
			for _, r := range rs {
				line := r.URI
				if r.Name != "" {
					line += "  " + r.Name
				}
				if r.MIMEType != "" {
					line += "  (" + r.MIMEType + ")"
				}
				if r.Description != "" {
					line += " — " + r.Description
				}
				lines = append(lines, line)
			}
			if len(lines) == 0 && err == nil {
				return "no resources", nil
			}
			return strings.Join(lines, "\n"), err
		})
	}
}

func (b *builder) templatesList(servers []string) handler {
	return func(ctx context.Context, a args) (*core.Result, error) {
		return b.each(ctx, a, "resources/templates/list", servers, func(ctx context.Context, _ string, s *session.Session) (string, error) {
			ts, err := s.ListResourceTemplates(ctx)
			var lines []string
			for _, t := range ts {
				line := t.URITemplate + "  " + t.Name
				if t.Description != "" {
					line += " — " + t.Description
				}
				lines = append(lines, line)
			}
			if len(lines) == 0 && err == nil {
				return "no resource templates", nil
			}
			return strings.Join(lines, "\n"), err
		})
	}
}

func (b *builder) resourceRead(ctx context.Context, a args) (*core.Result, error) {
	if a.URI == "" {
		return core.ErrorResult("uri is required"), nil
	}
	return Read(ctx, a.Server, b.byServer[a.Server], a.URI, b.maxOut)
}

// Read reads uri of server with s as the model or the user's message gets
// it: as resource content whose text and data are cut at maxOut bytes in
// all, read through hostfetch so that a resource far over maxOut
// (ReadLimit) is refused while it is read instead of read whole.
func Read(ctx context.Context, server string, s *session.Session, uri string, maxOut int) (*core.Result, error) {
	if maxOut <= 0 {
		maxOut = adapter.DefaultMaxOutputBytes
	}
	res, err := hostfetch.Read(ctx, s, uri, ReadLimit(maxOut))
	if errors.Is(err, hostfetch.ErrTooLarge) {
		return nil, fmt.Errorf("server %q: %w", server, err)
	}
	if err != nil {
		return nil, err
	}
	var out core.Result
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		cc := core.Content{Type: core.ContentResource, URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}
		if c.Text == "" {
			cc.Data = c.Blob
		}
		out.Content = append(out.Content, cc)
	}
	return bound(&out, maxOut), nil
}

// ReadLimit bounds a resource or prompt read to be rendered for the model
// or the user's message, whose text is cut at maxOut: one much larger is
// refused while it is read rather than read whole (hostfetch).
func ReadLimit(maxOut int) int { return max(16*maxOut, 2<<20) }

// GetPrompt renders prompt name of s with args, its answer bounded by
// ReadLimit(maxOut) while it is read (hostfetch).
func GetPrompt(ctx context.Context, s *session.Session, name string, args map[string]string, maxOut int) (*mcp.GetPromptResult, error) {
	if maxOut <= 0 {
		maxOut = adapter.DefaultMaxOutputBytes
	}
	ctx = hostfetch.WithAnswerCap(ctx, hostfetch.WireBytes(ReadLimit(maxOut)))
	return s.GetPrompt(ctx, name, args)
}

// bound cuts text content over max bytes in total.
func bound(r *core.Result, max int) *core.Result {
	left := max
	for i := range r.Content {
		c := &r.Content[i]
		n := len(c.Text) + len(c.Data)
		if n <= left {
			left -= n
			continue
		}
		if len(c.Text) > left {
			c.Text = c.Text[:max0(left)] + fmt.Sprintf("\n[output cut: %d more bytes not shown]", len(c.Text)-max0(left))
		}
		if len(c.Data) > 0 {
			c.Data = nil
			c.Text = fmt.Sprintf("[binary content of %d bytes not shown: over the output limit]", n)
		}
		left = 0
	}
	return r
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

func (b *builder) promptsList(servers []string) handler {
	return func(ctx context.Context, a args) (*core.Result, error) {
		return b.each(ctx, a, "prompts/list", servers, func(ctx context.Context, _ string, s *session.Session) (string, error) {
			ps, err := s.ListPrompts(ctx)
			var lines []string
			for _, p := range ps {
				line := p.Name
				var argNames []string
				for _, arg := range p.Arguments {
					n := arg.Name
					if arg.Required {
						n += "*"
					}
					argNames = append(argNames, n)
				}
				if len(argNames) > 0 {
					line += "(" + strings.Join(argNames, ", ") + ")"
				}
				if p.Description != "" {
					line += " — " + p.Description
				}
				lines = append(lines, line)
			}
			if len(lines) == 0 && err == nil {
				return "no prompts", nil
			}
			return strings.Join(lines, "\n"), err
		})
	}
}

func (b *builder) promptGet(ctx context.Context, a args) (*core.Result, error) {
	if a.Name == "" {
		return core.ErrorResult("name is required"), nil
	}
	res, err := GetPrompt(ctx, b.byServer[a.Server], a.Name, a.Arguments, b.maxOut)
	if err != nil {
		return nil, err
	}
	var parts []string
	if res.Description != "" {
		parts = append(parts, res.Description)
	}
	for _, m := range res.Messages {
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			parts = append(parts, string(m.Role)+": "+c.Text)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("%s: [resource %s]\n%s", m.Role, c.Resource.URI, c.Resource.Text))
			}
		default:
			parts = append(parts, fmt.Sprintf("%s: [%T content]", m.Role, c))
		}
	}
	return b.text(strings.Join(parts, "\n\n")), nil
}

func (b *builder) skillsList(servers []string) handler {
	return func(ctx context.Context, a args) (*core.Result, error) {
		return b.each(ctx, a, "skills/list", servers, func(ctx context.Context, _ string, s *session.Session) (string, error) {
			entries, problems, err := skills.List(ctx, s)
			var lines []string
			for _, e := range entries {
				lines = append(lines, fmt.Sprintf("%s  %s — %s", e.URI, e.Name(), e.Description()))
			}
			lines = append(lines, problems...)
			if len(lines) == 0 && err == nil {
				return "no skills", nil
			}
			return strings.Join(lines, "\n"), err
		})
	}
}

func (b *builder) skillLoad(ctx context.Context, a args) (*core.Result, error) {
	s := b.byServer[a.Server]
	entries, _, err := skills.List(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.URI != a.URI {
			continue
		}
		sk, err := skills.Load(ctx, s, e)
		if err != nil {
			return core.ErrorResult(err.Error()), nil
		}
		b.mu.Lock()
		b.loaded[a.Server+"\x00"+e.URI] = sk
		b.mu.Unlock()
		var files []string
		for _, f := range sk.Files() {
			files = append(files, f.URI)
		}
		text := fmt.Sprintf("Skill %s (%s), verified.\n\n%s", e.Name(), e.URI, sk.Body)
		if len(files) > 0 {
			text += "\n\nSupporting files (read with mcp_skill_read):\n" + strings.Join(files, "\n")
		}
		return b.text(text), nil
	}
	return core.ErrorResult(fmt.Sprintf("server %q lists no skill %q", a.Server, a.URI)), nil
}

func (b *builder) skillRead(ctx context.Context, a args) (*core.Result, error) {
	b.mu.Lock()
	sk := b.loaded[a.Server+"\x00"+a.Skill]
	b.mu.Unlock()
	if sk == nil {
		return core.ErrorResult("load the skill with mcp_skill_load first; only files of a loaded, verified skill are read"), nil
	}
	text, err := sk.Read(ctx, a.URI)
	if err != nil {
		return core.ErrorResult(err.Error()), nil
	}
	return b.text(text), nil
}
