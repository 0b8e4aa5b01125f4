package runtime

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/mcp-host/mcp-host/runtime/tracing"
)

// The runtime's spans (package tracing; off unless an OTLP endpoint is
// configured): connect, login and tool_call here, run and model_call in
// runtime/agentrun, and one per MCP request in the session. A tool call's MCP
// request is a child of its tool_call span, which is a child of the run,
// so one trace shows a turn from the prompt to the server and back.

// CallTool calls a tool on a ready server. A tool the filters hide is
// refused. A failure that looks like a lost transport makes the server check
// its connection, and reconnect if it is gone.
func (m *Manager) CallTool(ctx context.Context, id, tool string, args any) (*mcp.CallToolResult, error) {
	ctx, span := tracing.Start(ctx, "tool_call", attribute.String("mcp_host.server", id), attribute.String("gen_ai.tool.name", tool))
	res, err := m.callTool(ctx, id, tool, args)
	if err == nil && res != nil && res.IsError {
		span.SetAttributes(attribute.Bool("mcp_host.tool_error", true))
	}
	tracing.End(span, err)
	return res, err
}

// Login runs an interactive OAuth login for a server, then reconnects it.
// It runs outside every request and connect timeout: the wait for the
// browser is bounded by opts.Timeout and ctx only.
func (m *Manager) Login(ctx context.Context, id string, opts LoginOptions) error {
	ctx, span := tracing.Start(ctx, "login", attribute.String("mcp_host.server", id))
	err := m.login(ctx, id, opts)
	tracing.End(span, err)
	return err
}

// connect opens a session to the server, in a connect span.
func (sv *server) connect() (*session.Session, error) {
	ctx, span := tracing.Start(sv.ctx, "connect", attribute.String("mcp_host.server", sv.entry.ID))
	s, err := sv.connectIn(ctx)
	tracing.End(span, err)
	return s, err
}
