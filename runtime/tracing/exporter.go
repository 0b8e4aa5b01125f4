package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// exporter sends spans to an OTLP/HTTP endpoint in the protocol's JSON
// encoding (Content-Type application/json), which every OTLP receiver
// accepts. It is written here rather than taken from the OpenTelemetry
// exporters module because that module's protobuf encoding brings gRPC and
// the generated OTLP packages into the binary for what is a few JSON
// objects.
type exporter struct {
	url     string
	where   string // scheme://host, for errors: never the path or query
	headers map[string]string
	client  *http.Client
}

func newExporter(endpoint string, headers map[string]string) (*exporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tracing: the OTLP endpoint must be an http or https URL, got %q", redactURL(endpoint))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return &exporter{url: u.String(), where: u.Scheme + "://" + u.Host, headers: headers, client: &http.Client{Timeout: 10 * time.Second}}, nil
}

// redactURL keeps a URL's scheme and host only.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return u.Scheme + "://" + u.Host
}

// ExportSpans implements sdktrace.SpanExporter.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(encodeSpans(spans))
	if err != nil {
		return fmt.Errorf("tracing: encode spans: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("tracing: export to %s: %w", e.where, err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("tracing: export to %s: %w", e.where, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("tracing: export to %s: HTTP %d", e.where, resp.StatusCode)
	}
	return nil
}

// Shutdown implements sdktrace.SpanExporter.
func (e *exporter) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}

// The OTLP JSON encoding (opentelemetry-proto, ExportTraceServiceRequest):
// ids in hex, 64-bit integers as decimal strings, enums as numbers.
type (
	otlpRequest struct {
		ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
	}
	otlpResourceSpans struct {
		Resource   otlpResource     `json:"resource"`
		ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
	}
	otlpResource struct {
		Attributes []otlpKeyValue `json:"attributes,omitempty"`
	}
	otlpScopeSpans struct {
		Scope otlpScope  `json:"scope"`
		Spans []otlpSpan `json:"spans"`
	}
	otlpScope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	otlpSpan struct {
		TraceID           string         `json:"traceId"`
		SpanID            string         `json:"spanId"`
		ParentSpanID      string         `json:"parentSpanId,omitempty"`
		Name              string         `json:"name"`
		Kind              int            `json:"kind"`
		StartTimeUnixNano string         `json:"startTimeUnixNano"`
		EndTimeUnixNano   string         `json:"endTimeUnixNano"`
		Attributes        []otlpKeyValue `json:"attributes,omitempty"`
		Status            *otlpStatus    `json:"status,omitempty"`
	}
	otlpStatus struct {
		Code    int    `json:"code"`
		Message string `json:"message,omitempty"`
	}
	otlpKeyValue struct {
		Key   string    `json:"key"`
		Value otlpValue `json:"value"`
	}
	otlpValue struct {
		String *string   `json:"stringValue,omitempty"`
		Bool   *bool     `json:"boolValue,omitempty"`
		Int    *string   `json:"intValue,omitempty"`
		Double *float64  `json:"doubleValue,omitempty"`
		Array  *otlpList `json:"arrayValue,omitempty"`
	}
	otlpList struct {
		Values []otlpValue `json:"values"`
	}
)

// encodeSpans groups spans by resource and instrumentation scope.
func encodeSpans(spans []sdktrace.ReadOnlySpan) otlpRequest {
	var out otlpRequest
	resources := map[string]int{}    // encoded resource -> index in ResourceSpans
	scopes := map[[2]string][2]int{} // (resource, scope name) -> indexes
	for _, s := range spans {
		res := s.Resource()
		rk := res.Encoded(attribute.DefaultEncoder())
		sk := [2]string{rk, s.InstrumentationScope().Name}
		at, ok := scopes[sk]
		if !ok {
			ri, ok := resources[rk]
			if !ok {
				out.ResourceSpans = append(out.ResourceSpans, otlpResourceSpans{Resource: otlpResource{Attributes: encodeAttrs(res.Attributes())}})
				ri = len(out.ResourceSpans) - 1
				resources[rk] = ri
			}
			rs := &out.ResourceSpans[ri]
			rs.ScopeSpans = append(rs.ScopeSpans, otlpScopeSpans{Scope: otlpScope{Name: sk[1], Version: s.InstrumentationScope().Version}})
			at = [2]int{ri, len(rs.ScopeSpans) - 1}
			scopes[sk] = at
		}
		ss := &out.ResourceSpans[at[0]].ScopeSpans[at[1]]
		ss.Spans = append(ss.Spans, encodeSpan(s))
	}
	return out
}

func encodeSpan(s sdktrace.ReadOnlySpan) otlpSpan {
	sc := s.SpanContext()
	o := otlpSpan{
		TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String(), Name: s.Name(), Kind: int(s.SpanKind()),
		StartTimeUnixNano: strconv.FormatInt(s.StartTime().UnixNano(), 10),
		EndTimeUnixNano:   strconv.FormatInt(s.EndTime().UnixNano(), 10),
		Attributes:        encodeAttrs(s.Attributes()),
	}
	if p := s.Parent(); p.IsValid() {
		o.ParentSpanID = p.SpanID().String()
	}
	switch st := s.Status(); st.Code {
	case codes.Error: // OTLP STATUS_CODE_ERROR
		o.Status = &otlpStatus{Code: 2, Message: st.Description}
	case codes.Ok: // OTLP STATUS_CODE_OK
		o.Status = &otlpStatus{Code: 1}
	}
	return o
}

func encodeAttrs(kvs []attribute.KeyValue) []otlpKeyValue {
	out := make([]otlpKeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, otlpKeyValue{Key: string(kv.Key), Value: encodeValue(kv.Value)})
	}
	return out
}

func encodeValue(v attribute.Value) otlpValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return otlpValue{Bool: &b}
	case attribute.INT64:
		i := strconv.FormatInt(v.AsInt64(), 10)
		return otlpValue{Int: &i}
	case attribute.FLOAT64:
		f := v.AsFloat64()
		return otlpValue{Double: &f}
	case attribute.STRINGSLICE:
		l := &otlpList{}
		for _, s := range v.AsStringSlice() {
			l.Values = append(l.Values, otlpValue{String: &s})
		}
		return otlpValue{Array: l}
	default:
		s := v.String()
		return otlpValue{String: &s}
	}
}
