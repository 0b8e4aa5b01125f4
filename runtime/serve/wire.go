package serve

import (
	"encoding/json"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/process"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvironmentNames says which environment variables the stdio server cfg
// describes gets when this process starts it (names only; nil for other
// transports).
func EnvironmentNames(cfg config.ServerConfig) *protocol.EnvironmentNames {
	if cfg.TransportName() != "stdio" {
		return nil
	}
	n := process.HostNames(cfg.Env, cfg.EnvVars)
	return &protocol.EnvironmentNames{Base: n.Base, Env: n.Env, EnvVars: n.EnvVars, Unset: n.Unset}
}

// Status is a manager status in the protocol's form, with every string as
// the runtime has it. host serve strips the server's own words on top of
// it ([wireStatus]); the CLI's --json keeps them exact (its encoder escapes
// controls).
func Status(st runtime.Status) protocol.ServerStatus {
	out := protocol.ServerStatus{
		ID: st.ID, Transport: st.Transport, Source: st.Source, Enabled: st.Enabled,
		State: string(st.State), Status: string(st.State), Tools: st.Tools, Cached: st.Cached,
		ProtocolVersion: st.ProtocolVersion, ServerName: st.ServerName, ServerVersion: st.ServerVersion,
		SessionID: st.SessionID, LastError: st.LastError,
		LastConnectedAt: st.LastConnectedAt, NextRetryAt: st.NextRetryAt, Attempts: st.Attempts,
		Warnings: st.Warnings,
	}
	if p := st.Policy; p != nil {
		out.Policy = &protocol.PolicyStatus{File: p.File, Rule: p.Rule, Reason: p.Reason}
	}
	if sb := st.Sandbox; sb != nil {
		out.Sandbox = &protocol.SandboxStatus{State: sb.State, Status: sb.State, Detail: sb.Detail, Summary: sb.Summary, Protections: sb.Protections}
	}
	if a := st.Approval; a != nil {
		out.Approval = &protocol.ApprovalStatus{Decision: a.Decision, File: a.File, Digest: a.Digest, Fields: a.Fields}
	}
	if st.Auth != "" || st.AuthLoggedIn {
		out.Auth = &protocol.AuthStatus{LoggedIn: st.AuthLoggedIn, ValidUntil: st.AuthValidUntil, Detail: st.Auth, Storage: st.AuthStorage}
	}
	return out
}

// wireStatus turns a manager status into its wire form. The server's name
// and version, its own words, are stripped to one line (PROTOCOL.md,
// "Server-controlled text").
func wireStatus(st runtime.Status) protocol.ServerStatus {
	out := Status(st)
	out.ServerName, out.ServerVersion = termsafe.Line(out.ServerName), termsafe.Line(out.ServerVersion)
	return out
}

// ToolInfo describes an MCP tool with the fields tools.list and mcp.get
// use, with the server's strings exact (see [Status]); callers only
// describe tools whose names are safe ([adapter.SafeName]).
func ToolInfo(server, public string, t *mcp.Tool) protocol.ToolInfo {
	info := protocol.ToolInfo{
		PublicName: public, Server: server, Tool: t.Name,
		Title: t.Title, Description: t.Description,
	}
	if t.Title == "" && t.Annotations != nil {
		info.Title = t.Annotations.Title
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
	info.App = toolApp(t) // apps_wire.go
	return info
}

// wireToolDef describes an MCP tool for the UI. Its title is stripped to
// one line and its description stripped with its lines kept and never cut
// (the UI decides how much to show).
func wireToolDef(server, public string, t *mcp.Tool) protocol.ToolInfo {
	info := ToolInfo(server, public, t)
	info.Title = termsafe.Line(info.Title)
	info.Description = termsafe.Sanitize(info.Description, termsafe.Options{MultiLine: true, Max: -1})
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
