package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// variedServer has tools with every part a definition can have: titles,
// annotations, _meta, output schemas, $ref, unicode and escapes, nested
// properties, and one with an x-mcp-header binding.
func variedServer(opts *mcp.ServerOptions) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "varied", Version: "1"}, opts)
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	server.AddTool(&mcp.Tool{
		Name: "plain", Description: "a tool </script> with \"quotes\" and ünïcode \u2028",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"query <b>"}},"required":["q"]}`),
	}, noop)
	server.AddTool(&mcp.Tool{
		Name: "rich", Title: "Rich tool", Description: "has everything",
		Annotations:  &mcp.ToolAnnotations{Title: "Rich", ReadOnlyHint: true},
		Meta:         mcp.Meta{"io.example/x": "y"},
		InputSchema:  json.RawMessage(`{"type":"object","$defs":{"p":{"type":"object","properties":{"n":{"type":"number"}}}},"properties":{"p":{"$ref":"#/$defs/p"},"big":{"type":"integer","maximum":1e300}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"out":{"type":"string"}}}`),
	}, noop)
	server.AddTool(&mcp.Tool{
		Name: "bound", Description: "binds a header",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`),
	}, noop)
	return server
}

// sameAsSDK checks that the session's catalog is the bare SDK's, tool by
// tool, with the schemas kept as the JSON the server sent.
func sameAsSDK(t *testing.T, got, want []*mcp.Tool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("session has %d tools, the SDK %d", len(got), len(want))
	}
	for i := range want {
		g, w := *got[i], *want[i]
		for _, schema := range []struct {
			name      string
			got, want any
		}{{"inputSchema", g.InputSchema, w.InputSchema}, {"outputSchema", g.OutputSchema, w.OutputSchema}} {
			if schema.want == nil {
				if schema.got != nil {
					t.Errorf("%s: %s = %v, want none", w.Name, schema.name, schema.got)
				}
				continue
			}
			raw, ok := schema.got.(json.RawMessage)
			if !ok {
				t.Errorf("%s: %s is %T, want json.RawMessage", w.Name, schema.name, schema.got)
				continue
			}
			var decoded any
			if err := json.Unmarshal(raw, &decoded); err != nil {
				t.Errorf("%s: %s: %v", w.Name, schema.name, err)
			}
			if !reflect.DeepEqual(decoded, schema.want) {
				t.Errorf("%s: %s = %s, want %v", w.Name, schema.name, raw, schema.want)
			}
		}
		g.InputSchema, g.OutputSchema, w.InputSchema, w.OutputSchema = nil, nil, nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("tool %d: session %+v, SDK %+v", i, g, w)
		}
	}
}

func sdkTools(t *testing.T, url string) []*mcp.Tool {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// TestLeanListMatchesSDK checks that the lean tools/list path gives the
// tools the SDK's ListTools gives, with schemas as raw JSON, whatever the
// answer's form: an event stream, a JSON body, a stateless (2026-07-28)
// server, one whose lists may be cached (the SDK then answers a refresh
// from its cache, which holds the trimmed page); and that a tool with an
// x-mcp-header binding can be called on the stateless server (the SDK
// still knows the binding: the server refuses a call without its header).
func TestLeanListMatchesSDK(t *testing.T) {
	cacheable := &mcp.ServerOptions{SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs = 600_000 }}
	for _, tc := range []struct {
		name   string
		opts   *mcp.StreamableHTTPOptions
		server *mcp.ServerOptions
	}{
		{"event-stream", nil, nil},
		{"json", &mcp.StreamableHTTPOptions{JSONResponse: true}, nil},
		{"stateless", &mcp.StreamableHTTPOptions{Stateless: true}, nil},
		{"stateless-cached", &mcp.StreamableHTTPOptions{Stateless: true}, cacheable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := variedServer(tc.server)
			srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, tc.opts))
			defer srv.Close()
			s, err := session.Connect(context.Background(), session.Options{ID: "varied", URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sameAsSDK(t, s.Tools(), sdkTools(t, srv.URL))
			res, err := s.CallTool(context.Background(), "bound", map[string]any{"region": "eu"})
			if err != nil || res.IsError {
				t.Fatalf("call of the bound tool: %v %+v", err, res)
			}
			if _, err := s.RefreshTools(context.Background()); err != nil {
				t.Fatal(err)
			}
			sameAsSDK(t, s.Tools(), sdkTools(t, srv.URL))
		})
	}
}

// TestLeanListStdio checks the lean path over stdio, where the session
// reads the answers on the SDK's own connection.
func TestLeanListStdio(t *testing.T) {
	s, err := session.Connect(context.Background(), stdioOptions(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := s.Tools()
	if len(tools) == 0 {
		t.Fatal("no tools")
	}
	for _, tool := range tools {
		raw, ok := tool.InputSchema.(json.RawMessage)
		if !ok || !json.Valid(raw) || !strings.HasPrefix(string(raw), "{") {
			t.Errorf("%s: inputSchema %T %s, want the server's JSON", tool.Name, tool.InputSchema, raw)
		}
	}
	res, err := s.CallTool(context.Background(), "getenv", map[string]any{"name": "HOME"})
	if err != nil || res.IsError {
		t.Fatalf("call after the lean list: %v %+v", err, res)
	}
}

// TestLeanListHostilePages checks pages the lean path must leave to the
// SDK or read exactly as the SDK does: a tool whose x-mcp-header binding
// is invalid is dropped, as the SDK drops it; a null entry, a field named
// in another case, escapes in keys, deep nesting and a duplicate "tools"
// member give the SDK's answer.
func TestLeanListHostilePages(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 1200) + `1` + strings.Repeat(`}`, 1200)
	for _, tc := range []struct {
		name   string
		result string
		want   []string // tool names, in order
	}{
		{"invalid binding", `{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"bad","inputSchema":{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"O"}}}},{"name":"good","inputSchema":{"type":"object","properties":{"s":{"type":"string","x-mcp-header":"S"}}}}]}`, []string{"ok", "good"}},
		{"null entry", `{"tools":[null,{"name":"after","inputSchema":{"type":"object"}}]}`, []string{"after"}},
		{"other case", `{"tools":[{"NAME":"shout","name":"quiet","inputSchema":{"type":"object"}}]}`, []string{"quiet"}},
		{"escaped key", `{"tools":[],"t\u006fols":[{"name":"hidden","inputSchema":{"type":"object"}}]}`, []string{"hidden"}},
		{"duplicate tools", `{"tools":[{"name":"first","inputSchema":{"type":"object"}}],"tools":[{"name":"second","inputSchema":{"type":"object"}}]}`, []string{"second"}},
		{"deep schema", `{"tools":[{"name":"deep","inputSchema":` + deep + `}]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := scriptedListServer(t, tc.result)
			s, err := session.Connect(context.Background(), session.Options{ID: "hostile", URL: url})
			if tc.want == nil {
				if err == nil {
					s.Close()
					t.Fatal("connected; want the SDK's refusal of the page")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got []string
			for _, tool := range s.Tools() {
				got = append(got, tool.Name)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tools = %q, want %q", got, tc.want)
			}
		})
	}
}

// scriptedListServer answers the handshake and every tools/list with
// result, as JSON bodies.
func scriptedListServer(t *testing.T, result string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := readCall(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch req.Method {
		case "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`, req.ID)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, req.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
