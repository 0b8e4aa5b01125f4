package otlpexport

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
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
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcp-host/mcp-host/runtime/tracing"
)

// receiver is an OTLP/HTTP endpoint that keeps every span it is sent,
// decoded with the official OTLP protobuf definitions.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	service []string
	headers []http.Header
	// environment is the deployment.environment resource attribute.
	environment string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want POST /v1/traces application/x-protobuf", http.StatusBadRequest)
			return
		}
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		raw, _ := io.ReadAll(body)
		var msg coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(raw, &msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.headers = append(r.headers, req.Header.Clone())
		for _, rs := range msg.ResourceSpans {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.Key == "service.name" {
					r.service = append(r.service, a.GetValue().GetStringValue())
				}
				if a.Key == "deployment.environment" {
					r.environment = a.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) byName() map[string]*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]*tracepb.Span{}
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
	// The SDK reads the resource's own variable (resource.WithFromEnv).
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=ci")
	r := newReceiver(t)
	cfg, err := FromEnv(func(k string) (string, bool) {
		v, ok := map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT":        r.URL,
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS":  "x-api-key=s3cret%20key+b64==",
			"OTEL_EXPORTER_OTLP_HEADERS":         "x-api-key=general",
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
			"OTEL_SERVICE_NAME":                  "host-under-test",
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
	ctx, run := tracing.Start(context.Background(), "run", attribute.String("mcp_host.run_id", "run-1"))
	ctx2, call := tracing.StartClient(ctx, "tools/call echo", attribute.String("mcp.method.name", "tools/call"))
	meta := tracing.InjectMeta(ctx2, map[string]any{"progressToken": 7})
	tracing.End(call, errors.New("server said no"))
	tracing.End(run, nil)
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	spans := r.byName()
	runSpan, okRun := spans["run"]
	callSpan, okCall := spans["tools/call echo"]
	if !okRun || !okCall {
		t.Fatalf("received spans %v, want run and tools/call echo", spans)
	}
	if !bytes.Equal(callSpan.ParentSpanId, runSpan.SpanId) || !bytes.Equal(callSpan.TraceId, runSpan.TraceId) {
		t.Errorf("tools/call span parent %x trace %x, want the run span %x of trace %x", callSpan.ParentSpanId, callSpan.TraceId, runSpan.SpanId, runSpan.TraceId)
	}
	if callSpan.Kind != tracepb.Span_SPAN_KIND_CLIENT || callSpan.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || callSpan.GetStatus().GetMessage() != "server said no" {
		t.Errorf("tools/call span kind %v status %v, want client and error with the message", callSpan.Kind, callSpan.Status)
	}
	attrs := map[string]string{}
	for _, s := range []*tracepb.Span{runSpan, callSpan} {
		for _, a := range s.Attributes {
			attrs[a.Key] = a.GetValue().GetStringValue()
		}
	}
	if attrs["mcp_host.run_id"] != "run-1" || attrs["mcp.method.name"] != "tools/call" {
		t.Errorf("span attributes %v", attrs)
	}
	want := "00-" + hex.EncodeToString(callSpan.TraceId) + "-" + hex.EncodeToString(callSpan.SpanId) + "-01"
	if meta["traceparent"] != want || meta["progressToken"] != 7 {
		t.Errorf("_meta %v, want traceparent %s next to the progress token", meta, want)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.service) == 0 || r.service[0] != "host-under-test" {
		t.Errorf("service.name %v", r.service)
	}
	if r.environment != "ci" {
		t.Errorf("deployment.environment %q, want OTEL_RESOURCE_ATTRIBUTES' ci", r.environment)
	}
	// Percent-decoded, a '+' kept (a base64 key's).
	if len(r.headers) == 0 || r.headers[0].Get("X-Api-Key") != "s3cret key+b64==" {
		t.Errorf("export headers %v, want the configured x-api-key", r.headers)
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

// The protocol variable is honoured: http/protobuf is the default, and a
// protocol the host cannot speak is an error naming the variable rather
// than spans sent in another encoding.
func TestProtocolFromEnv(t *testing.T) {
	for _, tc := range []struct{ k, v string }{{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}, {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"}} {
		_, err := FromEnv(func(k string) (string, bool) {
			if k == tc.k {
				return tc.v, true
			}
			return "", false
		})
		if err == nil || !strings.Contains(err.Error(), tc.k) {
			t.Errorf("%s=%s: %v", tc.k, tc.v, err)
		}
	}
}

// The exporter reads the other standard variables itself: with
// OTEL_EXPORTER_OTLP_COMPRESSION=gzip the spans arrive compressed.
func TestCompressionFromEnv(t *testing.T) {
	resetGlobal(t)
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "5000")
	r := newReceiver(t)
	shutdown, err := Setup(Config{Endpoint: r.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, s := tracing.Start(context.Background(), "compressed")
	tracing.End(s, nil)
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.byName()["compressed"]; !ok {
		t.Fatal("the span did not arrive")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.headers[0].Get("Content-Encoding") != "gzip" {
		t.Errorf("Content-Encoding %q, want gzip", r.headers[0].Get("Content-Encoding"))
	}
}
