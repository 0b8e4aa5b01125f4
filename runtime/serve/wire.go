package serve

import (
	"encoding/json"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireStatus turns a manager status into its wire form. The server's name
// and version, its own words, are stripped to one line (PROTOCOL.md,
// "Server-controlled text").
func wireStatus(st runtime.Status) protocol.ServerStatus {
	out := protocol.ServerStatus{
		ID: st.ID, Transport: st.Transport, Source: st.Source, Enabled: st.Enabled,
		State: string(st.State), Tools: st.Tools,
		ProtocolVersion: st.ProtocolVersion, ServerName: termsafe.Line(st.ServerName), ServerVersion: termsafe.Line(st.ServerVersion),
		SessionID: st.SessionID, LastError: st.LastError,
		LastConnectedAt: st.LastConnectedAt, NextRetryAt: st.NextRetryAt,
	}
	if a := st.Approval; a != nil {
		out.Approval = &protocol.ApprovalStatus{Decision: a.Decision, File: a.File, Digest: a.Digest, Fields: a.Fields}
	}
	out.Warnings = st.Warnings
	if st.Auth != "" || st.AuthLoggedIn {
		out.Auth = &protocol.AuthStatus{LoggedIn: st.AuthLoggedIn, ValidUntil: st.AuthValidUntil, Detail: st.Auth, Storage: st.AuthStorage}
	}
	return out
}

// wireToolDef describes an MCP tool for the UI. Its title is stripped to
// one line and its description stripped with its lines kept and never cut
// (the UI decides how much to show); the name is the tool's key, and
// callers only describe tools whose names are safe ([adapter.SafeName]).
func wireToolDef(server, public string, t *mcp.Tool) protocol.ToolInfo {
	info := protocol.ToolInfo{
		PublicName: public, Server: server, Tool: t.Name,
		Title:       termsafe.Line(t.Title),
		Description: termsafe.Sanitize(t.Description, termsafe.Options{MultiLine: true, Max: -1}),
	}
	if t.Title == "" && t.Annotations != nil {
		info.Title = termsafe.Line(t.Annotations.Title)
	}
	if t.InputSchema != nil {
		if raw, err := json.Marshal(t.InputSchema); err == nil {
			info.InputSchema = raw
		}
	}
	if a := t.Annotations; a != nil {
		info.Annotations = &protocol.Annotations{
			Untrusted: true, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
			IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint,
		}
	}
	return info
}

func wireAnnotations(a *permission.Annotations) *protocol.Annotations {
	if a == nil {
		return nil
	}
	return &protocol.Annotations{
		Untrusted: true, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
		IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint,
	}
}

func wireResult(r *core.Result) protocol.ToolResult {
	out := protocol.ToolResult{Content: []protocol.Content{}}
	if r == nil {
		return out
	}
	out.Structured, out.IsError = r.Structured, r.IsError
	for _, c := range r.Content {
		out.Content = append(out.Content, protocol.Content{
			Type: c.Type, Text: c.Text, Data: c.Data, MIMEType: c.MIMEType, URI: c.URI, Name: c.Name, Title: c.Title,
		})
	}
	return out
}

// wireEvent turns a core event into an agent.event, resolving the tool's
// origin through the run's name table.
func wireEvent(runID string, e core.Event, table *adapter.Table) *protocol.AgentEventParams {
	p := &protocol.AgentEventParams{
		RunID: runID, Type: string(e.Type), Step: e.Step, Text: e.Text,
		Phase: string(e.Phase), Error: e.Error,
	}
	if e.Call != nil {
		c := &protocol.ToolCallInfo{ID: e.Call.ID, PublicName: e.Call.Name, Arguments: e.Call.Args}
		if table != nil {
			if o, ok := table.Lookup(e.Call.Name); ok {
				c.Server, c.Tool = o.Server, o.Tool
			} else {
				c.Unknown = true
			}
		}
		if len(c.Arguments) > 0 && !json.Valid(c.Arguments) {
			// The model's text is kept as a JSON string.
			c.Arguments, _ = json.Marshal(string(e.Call.Args))
		}
		p.Call = c
	}
	if e.Decision != nil {
		p.Decision, p.Reason = string(e.Decision.Kind), e.Decision.Reason
	}
	if e.Result != nil {
		r := wireResult(e.Result)
		p.Result = &r
	}
	return p
}

// guessOrigin names the tool an unknown name most likely meant: the one
// tool of the run whose own name it is, or the tool it names as
// "server/tool". It leaves c alone when that is not exactly one tool.
func guessOrigin(c *protocol.ToolCallInfo, snap *adapter.Snapshot) {
	if c == nil || !c.Unknown || snap == nil {
		return
	}
	var found *adapter.Tool
	for _, t := range snap.Tools() {
		if t.ToolName() == c.PublicName || t.Server()+"/"+t.ToolName() == c.PublicName {
			if found != nil {
				return // ambiguous
			}
			found = t
		}
	}
	if found != nil {
		c.Server, c.Tool = found.Server(), found.ToolName()
	}
}
