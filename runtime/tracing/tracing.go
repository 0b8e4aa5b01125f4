// Package tracing gives the runtime OpenTelemetry spans (run, model call,
// tool call, MCP request, connect, login) and propagates their W3C trace
// context to MCP servers in each request's _meta, as SEP-414 documents
// (keys traceparent and tracestate).
//
// It holds the OpenTelemetry API only. Spans are recorded once a command
// has set up an exporter and called [Enable] (package
// runtime/otlpexport, from the standard OTEL_* variables); until then
// every span is the OpenTelemetry no-op span: nothing is recorded,
// exported or propagated. The exporter lives apart so that the runtime's
// packages, and every test binary that links them, do without the OTLP
// exporter and the gRPC code its protobuf package brings (about 110
// packages).
package tracing

import (
	"context"
	"slices"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-host/mcp-host/redact"
)

// instrumentation names the tracer of every span the runtime makes.
const instrumentation = "github.com/mcp-host/mcp-host"

// on is set by [Enable] once spans are exported.
var on atomic.Bool

// Enable makes [Start] and [StartClient] record spans with the global
// tracer provider, which the caller has set up to export them.
func Enable() { on.Store(true) }

// Disable turns recording off again, before the provider shuts down.
func Disable() { on.Store(false) }

// On reports whether spans are exported: callers on hot paths can skip
// building span names and attributes while tracing is off.
func On() bool { return on.Load() }

// off is the span every Start returns while tracing is off: the no-op span
// of an empty context.
var off = trace.SpanFromContext(context.Background())

// Start starts a span named name as a child of ctx's span. With tracing
// off it returns ctx and a no-op span, without allocating.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if !on.Load() {
		return ctx, off
	}
	return otel.Tracer(instrumentation).Start(ctx, name, trace.WithAttributes(slices.Clone(attrs)...))
}

// StartClient is [Start] for a span that covers a request to another
// process (span kind client): an MCP request, a model API call.
func StartClient(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if !on.Load() {
		return ctx, off
	}
	return otel.Tracer(instrumentation).Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(slices.Clone(attrs)...))
}

// End ends span, marking it failed with err's message when err is not nil.
// The message passes the redactor first.
func End(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		span.SetStatus(codes.Error, redact.String(err.Error()))
	}
	span.End()
}

// InjectMeta writes ctx's trace context into an MCP request's _meta under
// the keys SEP-414 reserves (traceparent, tracestate), creating the map
// when meta is nil, and returns it. Without a recording span (tracing off)
// meta is returned unchanged.
func InjectMeta(ctx context.Context, meta map[string]any) map[string]any {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return meta
	}
	carrier := propagation.MapCarrier{}
	otel.GetTextMapPropagator().Inject(ctx, carrier)
	if len(carrier) == 0 {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range carrier {
		meta[k] = v
	}
	return meta
}
