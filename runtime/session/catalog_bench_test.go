package session_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// staticCatalogServer serves n tools over Streamable HTTP from tools/list
// pages rendered once, in pages of pageSize, so that a benchmark measures
// the client's cost of reading a catalog, not the server's of writing it.
// Each tool has a 200-character description and a 5-property input schema.
// It speaks 2025-11-25 (server/discover is refused, as a stateful go-sdk
// server refuses it) and announces tools.listChanged. With sse, pages are
// sent as go-sdk servers send them by default: one event on a POST's event
// stream, of a size not known in advance.
func staticCatalogServer(tb testing.TB, n, pageSize int, sse bool) string {
	tb.Helper()
	desc := strings.Repeat("Looks up records in the catalog by key. ", 5)[:200]
	var pages [][]byte
	for start := 0; start < n; start += pageSize {
		var b strings.Builder
		b.WriteString(`{"tools":[`)
		for i := start; i < min(n, start+pageSize); i++ {
			if i > start {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"tool_%05d","description":%q,"inputSchema":{"type":"object","properties":{`, i, desc)
			for p := range 5 {
				if p > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"param_%d":{"type":"string","description":"parameter %d of tool %d"}`, p, p, i)
			}
			b.WriteString(`},"required":["param_0"]}}`)
		}
		b.WriteString(`]`)
		if start+pageSize < n {
			fmt.Fprintf(&b, `,"nextCursor":"p%d"`, len(pages)+1)
		}
		b.WriteString(`}`)
		pages = append(pages, []byte(b.String()))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			return
		case http.MethodPost:
		default:
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		}
		req := readRequest(r)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result []byte
		switch req.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "static-1")
			result = []byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"static","version":"1"}}`)
		case "tools/list":
			page := 0
			if req.Params.Cursor != "" {
				fmt.Sscanf(req.Params.Cursor, "p%d", &page)
			}
			if page < 0 || page >= len(pages) {
				page = 0
			}
			result = pages[page]
		case "ping":
			result = []byte(`{}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
			return
		}
		if sse && req.Method == "tools/list" {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":", req.ID)
			w.Write(result)
			w.Write([]byte("}\n\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(`{"jsonrpc":"2.0","id":,"result":}`)+len(req.ID)+len(result)))
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":`, req.ID)
		w.Write(result)
		w.Write([]byte(`}`))
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkCatalog10k compares, in one run, a bare go-sdk client connecting
// and listing 10,000 tools (every page through ClientSession.ListTools) with
// session.Connect (which lists them) plus adapter.BuildCatalog over the
// result: the path from a server's catalog to the adapters a model is
// offered, with pages as JSON answers and as events on a stream. The
// server's pages are rendered once (see staticCatalogServer).
func BenchmarkCatalog10k(b *testing.B) {
	const n = 10000
	url := staticCatalogServer(b, n, 1000, false)
	b.Run("bare-go-sdk", func(b *testing.B) {
		b.ReportAllocs()
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
				Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
			if err != nil {
				b.Fatal(err)
			}
			count, cursor := 0, ""
			for {
				res, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{Cursor: cursor})
				if err != nil {
					b.Fatal(err)
				}
				count += len(res.Tools)
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if count != n {
				b.Fatalf("listed %d tools", count)
			}
			cs.Close()
		}
	})
	for _, path := range []struct {
		name string
		url  string
	}{{"session+adapter", url}, {"session+adapter-sse", staticCatalogServer(b, n, 1000, true)}} {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU()
			defer cpu.report(b)
			for b.Loop() {
				s, err := session.Connect(context.Background(), session.Options{ID: "bench", URL: path.url})
				if err != nil {
					b.Fatal(err)
				}
				cat, err := adapter.BuildCatalog("bench", s.Tools(), s, nil, adapter.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(cat.Tools) != n || len(cat.Problems) != 0 {
					b.Fatalf("catalog: %d tools, problems %v", len(cat.Tools), cat.Problems)
				}
				s.Close()
			}
		})
	}
}

// BenchmarkConnectStateless compares, in one run, connect + tools/list +
// close to a stateless (2026-07-28) go-sdk server with a bare go-sdk
// client, the same with a tool-list-changed handler, and session.Connect,
// which keeps the catalog fresh on list_changed (so it subscribes).
func BenchmarkConnectStateless(b *testing.B) {
	server := mcp.NewServer(&mcp.Implementation{Name: "stateless", Version: "1"}, nil)
	for i := range 5 {
		mcp.AddTool(server, &mcp.Tool{Name: fmt.Sprintf("echo_%d", i)}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	b.Cleanup(srv.Close)
	bare := func(b *testing.B, opts *mcp.ClientOptions) {
		b.ReportAllocs()
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, opts).
				Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
			if err != nil {
				b.Fatal(err)
			}
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(res.Tools) != 5 {
				b.Fatal(err, res)
			}
			if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
				b.Fatalf("negotiated %s", v)
			}
			cs.Close()
		}
	}
	b.Run("bare-go-sdk", func(b *testing.B) { bare(b, nil) })
	// The SDK with a tool-list-changed handler, as the session has one:
	// its Connect opens the subscriptions/listen stream and waits for it.
	b.Run("bare-go-sdk+list-changed", func(b *testing.B) {
		bare(b, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {}})
	})
	viaSession := func(b *testing.B, oneShot bool) {
		b.ReportAllocs()
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			s, err := session.Connect(context.Background(), session.Options{ID: "bench", URL: srv.URL, OneShot: oneShot})
			if err != nil {
				b.Fatal(err)
			}
			if len(s.Tools()) != 5 || s.Info().ProtocolVersion != "2026-07-28" {
				b.Fatalf("tools %d, version %s", len(s.Tools()), s.Info().ProtocolVersion)
			}
			s.Close()
		}
	}
	b.Run("session", func(b *testing.B) { viaSession(b, false) })
	// A CLI command's session: no list-changed stream (Options.OneShot).
	b.Run("session-oneshot", func(b *testing.B) { viaSession(b, true) })
}
