package agentrun

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/runtime/tracing"
)

// A run's spans: run, and model_call for each model call inside it; the
// manager adds tool_call and the session one span per MCP request, so one
// trace shows a turn from the prompt to the server and back.

// tracedProvider puts every model call in a model_call span.
type tracedProvider struct{ core.Provider }

// traceModel wraps p so that its calls are spans; with tracing off it
// returns p itself.
func traceModel(p core.Provider) core.Provider {
	if p == nil || !tracing.On() {
		return p
	}
	return tracedProvider{p}
}

// Stream implements core.Provider.
func (p tracedProvider) Stream(ctx context.Context, req core.Request, onDelta func(core.Delta)) (*core.Response, error) {
	ctx, span := tracing.StartClient(ctx, "model_call", attribute.Int("mcp_host.messages", len(req.Messages)), attribute.Int("mcp_host.tools", len(req.Tools)))
	res, err := p.Provider.Stream(ctx, req, onDelta)
	if res != nil {
		span.SetAttributes(attribute.Int("mcp_host.tool_calls", len(res.ToolCalls)), attribute.String("gen_ai.response.finish_reasons", res.FinishReason))
	}
	tracing.End(span, err)
	return res, err
}

// traceRun starts the span of a run.
func traceRun(ctx context.Context) (context.Context, func(error)) {
	ctx, span := tracing.Start(ctx, "run")
	return ctx, func(err error) { tracing.End(span, err) }
}
