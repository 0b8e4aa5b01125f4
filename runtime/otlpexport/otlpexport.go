// Package otlpexport sends the spans of package runtime/tracing to an
// OTLP endpoint, set up from the standard OpenTelemetry variables. Only
// commands import it (internal/archtest): the exporter and the gRPC code
// its protobuf package brings stay out of the runtime's packages and their
// test binaries.
//
// Tracing is off unless an OTLP endpoint is configured, with
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT. On,
// spans go to the endpoint through the official OTLP/HTTP exporter
// (otlptracehttp), which reads the other standard variables itself:
// headers (OTEL_EXPORTER_OTLP_[TRACES_]HEADERS), timeout, compression
// (gzip), certificates; the resource is OTEL_RESOURCE_ATTRIBUTES and
// OTEL_SERVICE_NAME, read by the SDK (resource.WithFromEnv). The
// protocol (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL) is http/protobuf, the
// OpenTelemetry default; grpc and http/json are refused with an error
// naming the variable (the Go SDK has no http/json exporter, and gRPC
// would be a second transport for what a collector also takes over HTTP).
package otlpexport

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcp-host/mcp-host/redact"
	"github.com/mcp-host/mcp-host/runtime/tracing"
)

// Config says where spans go. The zero Config turns tracing off.
type Config struct {
	// Endpoint is the OTLP/HTTP traces URL (for example
	// http://127.0.0.1:4318/v1/traces). A URL without a path gets
	// /v1/traces.
	Endpoint string
	// Headers are sent with every export (for example an API key); their
	// values are registered as secrets.
	Headers map[string]string
	// ServiceName is the service.name resource attribute; empty means
	// "mcp-host".
	ServiceName string
}

// FromEnv reads the standard OpenTelemetry exporter variables through
// lookup (os.LookupEnv when nil). An unparsable header list is an error
// naming the variable.
func FromEnv(lookup func(string) (string, bool)) (Config, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	// A signal's own variable wins over the general one, as the
	// specification says.
	either := func(k string) (string, string) {
		traces := strings.Replace(k, "OTLP_", "OTLP_TRACES_", 1)
		if v := get(traces); v != "" {
			return v, traces
		}
		return get(k), k
	}
	c := Config{Endpoint: get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), ServiceName: get("OTEL_SERVICE_NAME")}
	if c.Endpoint == "" {
		if base := get("OTEL_EXPORTER_OTLP_ENDPOINT"); base != "" {
			c.Endpoint = strings.TrimRight(base, "/") + "/v1/traces"
		}
	}
	if p, name := either("OTEL_EXPORTER_OTLP_PROTOCOL"); p != "" && p != "http/protobuf" {
		return Config{}, fmt.Errorf("%s=%s: only http/protobuf is supported", name, p)
	}
	if h, name := either("OTEL_EXPORTER_OTLP_HEADERS"); h != "" {
		c.Headers = map[string]string{}
		for _, kv := range strings.Split(h, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return Config{}, errors.New(name + ": want name=value pairs separated by commas")
			}
			// Percent-encoding, as the specification and the SDK's own
			// parser read it: a '+' stays a '+' (base64 API keys have them;
			// query unescaping made them spaces).
			if dec, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
				v = dec
			}
			c.Headers[k] = v
		}
	}
	return c, nil
}

// Setup turns tracing on for the process when c has an endpoint: spans of
// every [tracing.Start] are batched and exported, and trace context is propagated
// to MCP servers. It returns the function that flushes and stops the
// export; with tracing off it does nothing and returns a no-op.
func Setup(c Config) (shutdown func(context.Context) error, err error) {
	if c.Endpoint == "" {
		return func(context.Context) error { return nil }, nil
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tracing: the OTLP endpoint must be an http or https URL, got %q", redactURL(c.Endpoint))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	where := u.Scheme + "://" + u.Host // for errors: never the path or query
	for _, v := range c.Headers {
		redact.Register(v)
	}
	// Endpoint and headers are given as read above (they decide whether
	// tracing is on, and header values are secrets to redact); the
	// exporter reads timeout, compression and certificates itself.
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(u.String())}
	if len(c.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(c.Headers))
	}
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter for %s: %w", where, err)
	}
	// The SDK reads OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME itself
	// (resource.WithFromEnv); "mcp-host" is the name when neither gives one.
	ropts := []resource.Option{resource.WithAttributes(attribute.String("service.name", "mcp-host")), resource.WithFromEnv()}
	if c.ServiceName != "" {
		ropts = append(ropts, resource.WithAttributes(attribute.String("service.name", c.ServiceName)))
	}
	res, err := resource.New(context.Background(), ropts...)
	if err != nil {
		_ = exp.Shutdown(context.Background())
		return nil, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES or OTEL_SERVICE_NAME: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Second)),
		sdktrace.WithResource(res),
	)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	tracing.Enable()
	return func(ctx context.Context) error {
		tracing.Disable()
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("tracing: flush spans to %s: %s", where, redact.String(err.Error()))
		}
		return nil
	}, nil
}

// redactURL keeps a URL's scheme and host only.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return u.Scheme + "://" + u.Host
}
