package session

import (
	"context"
	"reflect"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcp-host/mcp-host/runtime/tracing"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// traceRequests is the sending middleware that gives every request to the
// server its own client span ("tools/call <tool>", "tools/list", ...) and
// carries the span's trace context to the server in the request's _meta
// (traceparent, tracestate: SEP-414). Notifications carry none. With
// tracing off it only passes the request on.
func traceRequests(serverID string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !tracing.On() || strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			name := method
			var params mcp.Params
			if req != nil {
				params = req.GetParams()
			}
			attrs := []attribute.KeyValue{attribute.String("mcp.method.name", method), attribute.String("mcp_host.server", serverID)}
			if p, ok := params.(*mcp.CallToolParams); ok && p != nil {
				name += " " + p.Name
				attrs = append(attrs, attribute.String("gen_ai.tool.name", p.Name))
			}
			ctx, span := tracing.StartClient(ctx, name, attrs...)
			if params != nil && !isNilParams(params) {
				params.SetMeta(tracing.InjectMeta(ctx, params.GetMeta()))
			}
			res, err := next(ctx, method, req)
			tracing.End(span, err)
			return res, err
		}
	}
}

// isNilParams reports whether p is a typed nil, which the SDK sends for
// requests without params.
func isNilParams(p mcp.Params) bool {
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
