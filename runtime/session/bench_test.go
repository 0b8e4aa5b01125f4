package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchServer serves an echo tool and n filler tools over Streamable HTTP.
func benchServer(b *testing.B, n int) string {
	b.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{PageSize: 1000})
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"query"}}}`)
	for i := range n {
		server.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%05d", i), Description: "filler tool for catalog benchmarks", InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkListTenThousandTools measures connecting to a server with 10,000
// tools and holding its catalog.
func BenchmarkListTenThousandTools(b *testing.B) {
	url := benchServer(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		s, err := session.Connect(context.Background(), session.Options{ID: "bench", URL: url})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(s.Tools()); n != 10001 {
			b.Fatalf("tools = %d", n)
		}
		s.Close()
	}
}

// BenchmarkStdioBigResult measures the memory one 5 MB tool result from a
// stdio server costs the session: B/op is the bytes allocated to read,
// check and decode it, about 5 MB for each copy made on the way.
func BenchmarkStdioBigResult(b *testing.B) {
	const size = 5 << 20
	s, err := session.Connect(context.Background(), stdioOptions(b, nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.CallTool(context.Background(), "big", map[string]any{"bytes": size})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(res.Content[0].(*mcp.TextContent).Text); n != size/100*100 {
			b.Fatalf("result of %d bytes", n)
		}
	}
}
