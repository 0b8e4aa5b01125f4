package tracing

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace/noop"
)

// receiver is an OTLP/HTTP endpoint that keeps every span it is sent.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []otlpSpan
	service []string
	headers []http.Header
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want POST /v1/traces application/json", http.StatusBadRequest)
			return
		}
		var body otlpRequest
		raw, _ := io.ReadAll(req.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.headers = append(r.headers, req.Header.Clone())
		for _, rs := range body.ResourceSpans {
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" && a.Value.String != nil {
					r.service = append(r.service, *a.Value.String)
				}
			}
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) byName() map[string]otlpSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]otlpSpan{}
	for _, s := range r.spans {
		out[s.Name] = s
	}
	return out
}

// resetGlobal puts the no-op provider back after a test turned tracing on.
func resetGlobal(t *testing.T) {
	t.Cleanup(func() { otel.SetTracerProvider(noop.NewTracerProvider()) })
}

// On, spans nest as the runtime starts them, reach the endpoint in OTLP
// JSON with their parents, attributes and error status, and the context
// injected into an MCP request's _meta names the innermost span.
func TestSpansAreExportedAndPropagated(t *testing.T) {
	resetGlobal(t)
	r := newReceiver(t)
	cfg, err := FromEnv(func(k string) (string, bool) {
		v, ok := map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL,
			"OTEL_EXPORTER_OTLP_HEADERS":  "x-api-key=s3cret%20key",
			"OTEL_SERVICE_NAME":           "host-under-test",
		}[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	shutdown, err := Setup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, run := Start(context.Background(), "run", attribute.String("mcp_host.run_id", "run-1"))
	ctx2, call := StartClient(ctx, "tools/call echo", attribute.String("mcp.method.name", "tools/call"))
	meta := InjectMeta(ctx2, map[string]any{"progressToken": 7})
	End(call, errors.New("server said no"))
	End(run, nil)
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	spans := r.byName()
	runSpan, okRun := spans["run"]
	callSpan, okCall := spans["tools/call echo"]
	if !okRun || !okCall {
		t.Fatalf("received spans %v, want run and tools/call echo", spans)
	}
	if callSpan.ParentSpanID != runSpan.SpanID || callSpan.TraceID != runSpan.TraceID {
		t.Errorf("tools/call span parent %s trace %s, want the run span %s of trace %s", callSpan.ParentSpanID, callSpan.TraceID, runSpan.SpanID, runSpan.TraceID)
	}
	if callSpan.Kind != 3 || callSpan.Status == nil || callSpan.Status.Code != 2 || callSpan.Status.Message != "server said no" {
		t.Errorf("tools/call span kind %d status %+v, want client (3) and error (2) with the message", callSpan.Kind, callSpan.Status)
	}
	want := "00-" + callSpan.TraceID + "-" + callSpan.SpanID + "-01"
	if meta["traceparent"] != want || meta["progressToken"] != 7 {
		t.Errorf("_meta %v, want traceparent %s next to the progress token", meta, want)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.service) == 0 || r.service[0] != "host-under-test" {
		t.Errorf("service.name %v", r.service)
	}
	if len(r.headers) == 0 || r.headers[0].Get("X-Api-Key") != "s3cret key" {
		t.Errorf("export headers %v, want the configured x-api-key", r.headers)
	}
}

// Off (no endpoint), a span costs no allocation and nothing is injected.
func TestOffIsFree(t *testing.T) {
	resetGlobal(t)
	otel.SetTracerProvider(noop.NewTracerProvider())
	shutdown, err := Setup(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
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

// Bad configuration is an error naming the variable or the endpoint, and
// never echoes a secret.
func TestBadConfig(t *testing.T) {
	_, err := FromEnv(func(k string) (string, bool) {
		if k == "OTEL_EXPORTER_OTLP_HEADERS" {
			return "novalue", true
		}
		return "", false
	})
	if err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_HEADERS") {
		t.Errorf("bad headers: %v", err)
	}
	_, err = Setup(Config{Endpoint: "ftp://collector.example/v1/traces?key=s3cret"})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "ftp://collector.example") {
		t.Errorf("bad endpoint: %v", err)
	}
}
