package serve

import (
	"context"
	"fmt"
	"sort"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/resources"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var _ protocol.PrimitivesServer = (*service)(nil)

// maxCompletions bounds the values of a completion answer (as MCP does).
const maxCompletions = 100

// readySession returns the session of a ready server, or the protocol
// error that says why there is none.
func (s *service) readySession(ctx context.Context, id string) (*session.Session, error) {
	if _, err := s.status(id); err != nil {
		return nil, err
	}
	// A lazy server that is stopped starts for the request (bounded by
	// the request's context and the server's startup timeout).
	_ = s.m.Wake(ctx, id)
	st, err := s.status(id)
	if err != nil {
		return nil, err
	}
	if st.State != runtime.StateReady {
		return nil, protocol.NewError(protocol.CodeNotReady, protocol.ErrorData{Server: id, State: string(st.State)},
			"server %q is %s, not ready%s", id, st.State, suffix(st.LastError))
	}
	sess, err := s.m.Session(id)
	if err != nil {
		// The manager's error names the server ("server \"x\" is
		// reconnecting").
		return nil, protocol.NewError(protocol.CodeNotReady, protocol.ErrorData{Server: id}, "%s", termsafe.Line(err.Error()))
	}
	return sess, nil
}

// targets returns the sessions a list covers: the named server, or every
// ready server whose capabilities offer(caps) says yes to.
func (s *service) targets(ctx context.Context, server string, offer func(*mcp.ServerCapabilities) bool) (map[string]*session.Session, []string, error) {
	out := map[string]*session.Session{}
	if server != "" {
		sess, err := s.readySession(ctx, server)
		if err != nil {
			return nil, nil, err
		}
		out[server] = sess
		return out, []string{server}, nil
	}
	var ids []string
	for _, st := range s.m.List() {
		if st.State != runtime.StateReady {
			continue
		}
		sess, err := s.m.Session(st.ID)
		if err != nil {
			continue
		}
		if caps := sess.Info().Capabilities; caps != nil && offer(caps) {
			out[st.ID] = sess
			ids = append(ids, st.ID)
		}
	}
	sort.Strings(ids)
	return out, ids, nil
}

func offersPrompts(c *mcp.ServerCapabilities) bool   { return c.Prompts != nil }
func offersResources(c *mcp.ServerCapabilities) bool { return c.Resources != nil }

// PromptsList lists the prompts of one server or of every ready server
// that offers prompts; their text is stripped.
func (s *service) PromptsList(ctx context.Context, p *protocol.ListParams) (*protocol.PromptsListResult, error) {
	sessions, ids, err := s.targets(ctx, p.Server, offersPrompts)
	if err != nil {
		return nil, err
	}
	res := &protocol.PromptsListResult{Prompts: []protocol.PromptInfo{}}
	for _, id := range ids {
		ps, err := sessions[id].ListPrompts(ctx)
		if err != nil {
			if p.Server != "" {
				return nil, failed(id, "prompts/list", "", err)
			}
			res.Problems = append(res.Problems, saidOnce(id, "prompts/list", "", err))
		}
		for _, pr := range ps {
			if pr == nil {
				continue
			}
			if !safeName(pr.Name) {
				res.Problems = append(res.Problems, fmt.Sprintf("server %q: prompt %q left out: its name has control or invisible characters (shown stripped) or is over 256 bytes", id, termsafe.LineMax(pr.Name, 256)))
				continue
			}
			info := protocol.PromptInfo{Server: id, Name: pr.Name, Title: termsafe.Line(pr.Title), Description: termsafe.Text(pr.Description)}
			for _, a := range pr.Arguments {
				if a == nil {
					continue
				}
				info.Arguments = append(info.Arguments, protocol.PromptArgument{Name: termsafe.Line(a.Name), Title: termsafe.Line(a.Title), Description: termsafe.Text(a.Description), Required: a.Required})
			}
			res.Prompts = append(res.Prompts, info)
		}
	}
	return res, nil
}

// safeName reports whether a prompt's name can be typed and shown as is.
func safeName(n string) bool { return n != "" && termsafe.Strip(n) == n && len(n) <= 256 }

// PromptsGet renders one prompt, its answer bounded while read.
func (s *service) PromptsGet(ctx context.Context, p *protocol.PromptsGetParams) (*protocol.PromptsGetResult, error) {
	sess, err := s.readySession(ctx, p.Server)
	if err != nil {
		return nil, err
	}
	r, err := resources.GetPrompt(ctx, sess, p.Name, p.Arguments, s.opts.Adapter.MaxOutputBytes)
	if err != nil {
		return nil, failed(p.Server, "prompts/get", p.Name, err)
	}
	res := &protocol.PromptsGetResult{Server: p.Server, Name: p.Name, Description: termsafe.Text(r.Description), Messages: []protocol.PromptMessage{}}
	for _, m := range r.Messages {
		if m == nil {
			continue
		}
		res.Messages = append(res.Messages, protocol.PromptMessage{Role: string(m.Role), Content: wirePromptContent(m.Content)})
	}
	return res, nil
}

// wirePromptContent turns a prompt message's content into a wire block.
func wirePromptContent(c mcp.Content) protocol.Content {
	switch c := c.(type) {
	case *mcp.TextContent:
		return protocol.Content{Type: core.ContentText, Text: c.Text}
	case *mcp.ImageContent:
		return protocol.Content{Type: core.ContentImage, Data: c.Data, MIMEType: c.MIMEType}
	case *mcp.AudioContent:
		return protocol.Content{Type: core.ContentAudio, Data: c.Data, MIMEType: c.MIMEType}
	case *mcp.ResourceLink:
		return protocol.Content{Type: core.ContentLink, URI: c.URI, Name: c.Name, Title: c.Title, MIMEType: c.MIMEType, Text: c.Description}
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			break
		}
		out := protocol.Content{Type: core.ContentResource, URI: c.Resource.URI, MIMEType: c.Resource.MIMEType, Text: c.Resource.Text}
		if c.Resource.Text == "" {
			out.Data = c.Resource.Blob
		}
		return out
	}
	return protocol.Content{Type: core.ContentText, Text: fmt.Sprintf("[%T content omitted]", c)}
}

// PromptsComplete completes an argument of a prompt.
func (s *service) PromptsComplete(ctx context.Context, p *protocol.CompleteParams) (*protocol.CompleteResult, error) {
	return s.complete(ctx, p, &mcp.CompleteReference{Type: "ref/prompt", Name: p.Prompt})
}

// ResourcesComplete completes a variable of a resource template.
func (s *service) ResourcesComplete(ctx context.Context, p *protocol.CompleteParams) (*protocol.CompleteResult, error) {
	return s.complete(ctx, p, &mcp.CompleteReference{Type: "ref/resource", URI: p.URITemplate})
}

// complete asks the server's completion/complete; a server without the
// completions capability is not asked and answers no values.
func (s *service) complete(ctx context.Context, p *protocol.CompleteParams, ref *mcp.CompleteReference) (*protocol.CompleteResult, error) {
	sess, err := s.readySession(ctx, p.Server)
	if err != nil {
		return nil, err
	}
	res := &protocol.CompleteResult{Values: []string{}}
	if caps := sess.Info().Capabilities; caps == nil || caps.Completions == nil {
		return res, nil
	}
	params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: p.Argument, Value: p.Value}}
	if len(p.Arguments) > 0 {
		params.Context = &mcp.CompleteContext{Arguments: p.Arguments}
	}
	r, err := sess.Complete(ctx, params)
	if err != nil {
		return nil, failed(p.Server, "completion/complete", p.Argument, err)
	}
	for _, v := range r.Completion.Values {
		if len(res.Values) == maxCompletions {
			break
		}
		res.Values = append(res.Values, termsafe.Line(v))
	}
	res.Total, res.HasMore = r.Completion.Total, r.Completion.HasMore || len(r.Completion.Values) > maxCompletions
	return res, nil
}

// ResourcesList lists the resources of one server or of every ready
// server that offers resources.
func (s *service) ResourcesList(ctx context.Context, p *protocol.ListParams) (*protocol.ResourcesListResult, error) {
	sessions, ids, err := s.targets(ctx, p.Server, offersResources)
	if err != nil {
		return nil, err
	}
	res := &protocol.ResourcesListResult{Resources: []protocol.ResourceInfo{}}
	for _, id := range ids {
		rs, err := sessions[id].ListResources(ctx)
		if err != nil {
			if p.Server != "" {
				return nil, failed(id, "resources/list", "", err)
			}
			res.Problems = append(res.Problems, saidOnce(id, "resources/list", "", err))
		}
		for _, r := range rs {
			if r == nil || r.URI == "" {
				continue
			}
			res.Resources = append(res.Resources, protocol.ResourceInfo{Server: id, URI: r.URI, Name: termsafe.Line(r.Name), Title: termsafe.Line(r.Title),
				Description: termsafe.Text(r.Description), MIMEType: termsafe.Line(r.MIMEType), Size: r.Size})
		}
	}
	return res, nil
}

// ResourcesTemplatesList lists resource templates.
func (s *service) ResourcesTemplatesList(ctx context.Context, p *protocol.ListParams) (*protocol.ResourceTemplatesListResult, error) {
	sessions, ids, err := s.targets(ctx, p.Server, offersResources)
	if err != nil {
		return nil, err
	}
	res := &protocol.ResourceTemplatesListResult{Templates: []protocol.ResourceTemplateInfo{}}
	for _, id := range ids {
		ts, err := sessions[id].ListResourceTemplates(ctx)
		if err != nil {
			if p.Server != "" {
				return nil, failed(id, "resources/templates/list", "", err)
			}
			res.Problems = append(res.Problems, saidOnce(id, "resources/templates/list", "", err))
		}
		for _, t := range ts {
			if t == nil || t.URITemplate == "" {
				continue
			}
			res.Templates = append(res.Templates, protocol.ResourceTemplateInfo{Server: id, URITemplate: t.URITemplate, Name: termsafe.Line(t.Name),
				Title: termsafe.Line(t.Title), Description: termsafe.Text(t.Description), MIMEType: termsafe.Line(t.MIMEType)})
		}
	}
	return res, nil
}

// ResourcesRead reads one resource as an attachment would carry it:
// bounded while read and cut at the output bound (resources.Read).
func (s *service) ResourcesRead(ctx context.Context, p *protocol.ResourceParams) (*protocol.ResourcesReadResult, error) {
	r, err := s.readAttachment(ctx, *p)
	if err != nil {
		return nil, err
	}
	return &protocol.ResourcesReadResult{Contents: wireResult(r).Content}, nil
}

func (s *service) readAttachment(ctx context.Context, p protocol.ResourceParams) (*core.Result, error) {
	sess, err := s.readySession(ctx, p.Server)
	if err != nil {
		return nil, err
	}
	r, err := resources.Read(ctx, p.Server, sess, p.URI, s.opts.Adapter.MaxOutputBytes)
	if err != nil {
		return nil, failed(p.Server, "resources/read", p.URI, err)
	}
	return r, nil
}

// ResourcesSubscribe subscribes to a resource's changes; they arrive as
// resources.updated notifications.
func (s *service) ResourcesSubscribe(ctx context.Context, p *protocol.ResourceParams) (*protocol.Empty, error) {
	sess, err := s.readySession(ctx, p.Server)
	if err != nil {
		return nil, err
	}
	if err := sess.Subscribe(ctx, p.URI); err != nil {
		return nil, failed(p.Server, "resources/subscribe", p.URI, err)
	}
	s.m.Subscribed(p.Server, 1) // keeps a lazy server awake
	return &protocol.Empty{}, nil
}

// ResourcesUnsubscribe ends a subscription.
func (s *service) ResourcesUnsubscribe(ctx context.Context, p *protocol.ResourceParams) (*protocol.Empty, error) {
	sess, err := s.readySession(ctx, p.Server)
	if err != nil {
		return nil, err
	}
	if err := sess.Unsubscribe(ctx, p.URI); err != nil {
		return nil, failed(p.Server, "resources/unsubscribe", p.URI, err)
	}
	s.m.Subscribed(p.Server, -1)
	return &protocol.Empty{}, nil
}

// resourceUpdated passes a server's resources/updated on to the UI, in
// order with the other notifications.
func (s *service) resourceUpdated(server, uri string) {
	s.mu.Lock()
	ready := s.initialized
	s.mu.Unlock()
	if !ready {
		return
	}
	s.enqueueLatest("resources.updated\x00"+server+"\x00"+uri, func(coalesced int) {
		n := &protocol.ResourceUpdatedParams{Server: server, URI: uri, Coalesced: coalesced}
		_ = s.conn.Notify(protocol.MethodResourcesUpdated, n)
	})
}

// userPrompts reports whether the UI offers server's prompts to the user,
// so the model's prompt tools leave them out: the UI said mcp_prompts and
// the server's config does not say "prompts_to_model": true.
func (s *service) userPrompts(server string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.caps.MCPPrompts {
		return false
	}
	if v := s.entries[server].Config.PromptsToModel; v != nil {
		return !*v
	}
	return true
}

// userTurn builds the messages run.start adds to the conversation: the
// prompt's messages (consecutive ones of a role joined), then the typed
// text and the attachments, joined to a last user message. Each user
// message's text is what a text-only model reads; its parts (images,
// embedded resources) ride along in Result.
func (s *service) userTurn(ctx context.Context, p *protocol.RunStartParams) ([]core.Message, error) {
	var out []core.Message
	var parts [][]core.Content
	add := func(role core.Role, c core.Content) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			parts[n-1] = append(parts[n-1], c)
			return
		}
		out = append(out, core.Message{Role: role})
		parts = append(parts, []core.Content{c})
	}
	// A prompt's binary parts are held to the bound prompts.get reads
	// them with (the UI hands back what a server sent).
	limit, data := resources.ReadLimit(s.opts.Adapter.MaxOutputBytes), 0
	for i, m := range p.Messages {
		if data += len(m.Content.Data); data > limit {
			return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "messages"},
				"run.start: the data of messages[0..%d] is over the bound of %d bytes a prompt's messages may carry", i, limit)
		}
		role := core.Role(m.Role)
		if role != core.RoleUser && role != core.RoleAssistant {
			return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "messages"},
				"run.start: messages[%d].role must be \"user\" or \"assistant\", not %q", i, termsafe.Line(m.Role))
		}
		c := m.Content
		add(role, core.Content{Type: c.Type, Text: c.Text, Data: c.Data, MIMEType: c.MIMEType, URI: c.URI, Name: c.Name, Title: c.Title})
	}
	if p.Prompt != "" {
		add(core.RoleUser, core.Content{Type: core.ContentText, Text: p.Prompt})
	}
	for _, a := range p.Attach {
		if a.Server == "" || a.URI == "" {
			return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "attach"}, "run.start: every attach entry needs server and uri")
		}
		r, err := s.readAttachment(ctx, a)
		if err != nil {
			return nil, err
		}
		for _, c := range r.Content {
			add(core.RoleUser, c)
		}
	}
	if len(out) == 0 || out[len(out)-1].Role != core.RoleUser {
		return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "prompt"},
			"run.start: params field \"prompt\" is required: the user's message (or messages ending with the user's)")
	}
	for i := range out {
		res := &core.Result{Content: parts[i]}
		out[i].Content = core.RenderResult(res)
		if out[i].Role == core.RoleUser && hasBinary(parts[i]) {
			out[i].Result = res
		}
	}
	return out, nil
}

func hasBinary(cs []core.Content) bool {
	for _, c := range cs {
		if len(c.Data) > 0 {
			return true
		}
	}
	return false
}
