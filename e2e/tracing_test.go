package e2e_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// otlpSpan is what the test reads of a span in an OTLP export: IDs in
// hex, string and int attributes as text.
type otlpSpan struct {
	TraceID, SpanID, ParentSpanID, Name, Service string
	Attrs                                        map[string]string
}

// otlpReceiver is an OTLP/HTTP traces endpoint that keeps the spans it
// gets, decoded with the official OTLP protobuf definitions.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []otlpSpan
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var msg coltracepb.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(raw, &msg) != nil {
		http.Error(w, "want OTLP protobuf on /v1/traces", http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, rs := range msg.ResourceSpans {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				attrs := map[string]string{}
				for _, a := range s.Attributes {
					v := a.GetValue()
					attrs[a.Key] = v.GetStringValue()
					if _, ok := v.GetValue().(*commonpb.AnyValue_IntValue); ok {
						attrs[a.Key] = strconv.FormatInt(v.GetIntValue(), 10)
					}
				}
				o.spans = append(o.spans, otlpSpan{TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
					ParentSpanID: hex.EncodeToString(s.ParentSpanId), Name: s.Name, Service: service, Attrs: attrs})
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// With an OTLP endpoint configured, a run is one trace: the run, its model
// calls, the tool call and the MCP request reach the collector with their
// parents, and the server sees the MCP request's span as traceparent in
// the request's _meta (SEP-414).
func TestTraceContextReachesCollectorAndServer(t *testing.T) {
	recv := &otlpReceiver{}
	collector := httptest.NewServer(recv)
	t.Cleanup(collector.Close)

	var seen sync.Map // traceparent the server saw, per tool
	srv := mcp.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echoes"}, func(_ context.Context, req *mcp.CallToolRequest, a struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		seen.Store("echo", req.Params.Meta["traceparent"])
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	mcpSrv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(mcpSrv.Close)

	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"traced": map[string]any{"transport": "http", "url": mcpSrv.URL},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{callStep(call("traced/echo", map[string]any{"text": "hi"})), {"text": "done"}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file",
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + collector.URL, "OTEL_SERVICE_NAME=mcp-host-e2e"},
		"--script", script, "--allow", "traced/echo", "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-trace"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "traced ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "traced"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "echo hi"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the run to end", func() bool { _, ok := h.ui.finalRun(r.RunID); return ok })
	// Spans are flushed when host serve exits.
	h.stdin.Close()
	select {
	case err := <-h.exited:
		h.exited <- err
	case <-time.After(20 * time.Second):
		t.Fatal("host serve did not exit")
	}

	recv.mu.Lock()
	spans := append([]otlpSpan(nil), recv.spans...)
	recv.mu.Unlock()
	byName := map[string][]otlpSpan{}
	byID := map[string]otlpSpan{}
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
		byID[s.SpanID] = s
	}
	for _, want := range []string{"run", "model_call", "tool_call", "tools/call echo", "connect", "initialize", "tools/list"} {
		if len(byName[want]) == 0 {
			names := []string{}
			for n := range byName {
				names = append(names, n)
			}
			t.Fatalf("no %q span among %v", want, names)
		}
	}
	req := byName["tools/call echo"][0]
	call := byID[req.ParentSpanID]
	run := byID[call.ParentSpanID]
	if call.Name != "tool_call" || run.Name != "run" || req.TraceID != run.TraceID {
		t.Errorf("tools/call's parents: %q then %q (trace %s vs %s), want tool_call then run in one trace", call.Name, run.Name, req.TraceID, run.TraceID)
	}
	if model := byName["model_call"][0]; model.ParentSpanID != run.SpanID {
		t.Errorf("model_call's parent %s, want the run %s", model.ParentSpanID, run.SpanID)
	}
	// The attributes the README promises.
	for _, c := range []struct {
		span otlpSpan
		want map[string]string
	}{
		{req, map[string]string{"mcp.method.name": "tools/call", "mcp_host.server": "traced", "gen_ai.tool.name": "echo"}},
		{call, map[string]string{"mcp_host.server": "traced", "gen_ai.tool.name": "echo"}},
		{byName["connect"][0], map[string]string{"mcp_host.server": "traced"}},
		{byName["model_call"][0], map[string]string{"mcp_host.messages": "1"}},
	} {
		for k, v := range c.want {
			if c.span.Attrs[k] != v {
				t.Errorf("span %s: %s = %q, want %q (attributes %v)", c.span.Name, k, c.span.Attrs[k], v, c.span.Attrs)
			}
		}
	}
	if n, err := strconv.Atoi(byName["model_call"][0].Attrs["mcp_host.tools"]); err != nil || n < 1 {
		t.Errorf("model_call's mcp_host.tools = %q, want the count of tools offered (at least traced/echo)", byName["model_call"][0].Attrs["mcp_host.tools"])
	}
	if run.Service != "mcp-host-e2e" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's mcp-host-e2e", run.Service)
	}
	tp, _ := seen.Load("echo")
	if want := "00-" + req.TraceID + "-" + req.SpanID + "-01"; tp != want {
		t.Errorf("the server saw traceparent %v, want %s (the tools/call span)", tp, want)
	}
}

// Without an endpoint nothing is traced: the server sees no traceparent.
func TestNoTraceContextWhenTracingIsOff(t *testing.T) {
	var seen sync.Map
	srv := mcp.NewServer(&mcp.Implementation{Name: "untraced", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		_, has := req.Params.Meta["traceparent"]
		seen.Store("echo", has)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	mcpSrv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(mcpSrv.Close)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"untraced": map[string]any{"transport": "http", "url": mcpSrv.URL},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file",
		"OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="},
		"--allow", "untraced/echo", "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-untraced"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "untraced ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "untraced"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	if _, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "untraced", Tool: "echo", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if has, _ := seen.Load("echo"); has != false {
		t.Errorf("with tracing off the server saw a traceparent (%v)", has)
	}
}
