package tracing

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace/noop"
)

// Off (no exporter enabled), a span costs no allocation and nothing is injected.
func TestOffIsFree(t *testing.T) {
	otel.SetTracerProvider(noop.NewTracerProvider())
	Disable()
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		c, s := StartClient(ctx, "tools/call", attribute.String("mcp.method.name", "tools/call"), attribute.String("mcp_host.server", "files"))
		End(s, nil)
		_ = c
	})
	if allocs != 0 {
		t.Errorf("a span with tracing off allocates %v times, want 0", allocs)
	}
	c, s := Start(ctx, "run")
	defer s.End()
	if meta := InjectMeta(c, nil); meta != nil {
		t.Errorf("tracing off injected %v", meta)
	}
}
