package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConnsPath is the path at which a bench server answers with the number of
// TCP connections it has accepted so far (those that asked excepted), so
// that a client's connection churn can be counted. Ask with keep-alives off.
const ConnsPath = "/_bench/conns"

// echoArgs is the echo tool's input.
type echoArgs struct {
	Text string `json:"text"`
}

// NewServer returns a go-sdk server with an "echo" tool and, when tools is
// positive, that many more catalog tools, each with a 200-character
// description and a 5-property input schema.
func NewServer(tools int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{
		// Lists say they stay fresh for an hour (SEP-2549 ttlMs), so the
		// catalog row can show what the host's list cache saves.
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.GetParams().(*mcp.ListToolsParams); ok {
				c.TTLMs = int(time.Hour / time.Millisecond)
			}
		},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "returns its text"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	for i := range tools {
		s.AddTool(catalogTool(i), handler)
	}
	return s
}

// catalogTool is tool i of a large catalog.
func catalogTool(i int) *mcp.Tool {
	desc := fmt.Sprintf("Tool %d of the benchmark catalog. ", i)
	desc += strings.Repeat("It reads records and writes a summary. ", 6)
	desc = desc[:200]
	props := map[string]any{}
	for j, kind := range []string{"string", "integer", "boolean", "number", "string"} {
		props[fmt.Sprintf("param_%d", j)] = map[string]any{"type": kind, "description": fmt.Sprintf("parameter %d of tool %d", j, i)}
	}
	return &mcp.Tool{
		Name:        fmt.Sprintf("catalog_tool_%05d", i),
		Description: desc,
		InputSchema: map[string]any{"type": "object", "properties": props, "required": []string{"param_0"}},
	}
}

// A Server is a bench server listening on loopback.
type Server struct {
	// URL is the server's MCP endpoint.
	URL   string
	srv   *http.Server
	conns atomic.Int64 // accepted
	asked atomic.Int64 // of them, connections that asked for the count
}

// Serve starts serving s over Streamable HTTP on a loopback port. Every
// POST is answered after latency (0 for none).
func Serve(s *mcp.Server, latency time.Duration) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench server: listen: %w", err)
	}
	bs := &Server{URL: "http://" + ln.Addr().String() + "/mcp"}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	bs.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == ConnsPath {
				// Each question comes on a connection of its own.
				fmt.Fprint(w, bs.conns.Load()-bs.asked.Add(1))
				return
			}
			if latency > 0 && r.Method == http.MethodPost {
				time.Sleep(latency)
			}
			h.ServeHTTP(w, r)
		}),
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				bs.conns.Add(1)
			}
		},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = bs.srv.Serve(ln) }()
	return bs, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// countClient asks for connection counts on a connection of its own each
// time, which the count includes.
var countClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// connCount asks the bench server at mcpURL how many connections it has
// accepted, not counting those that asked this question.
func connCount(mcpURL string) (int64, error) {
	u := strings.TrimSuffix(mcpURL, "/mcp") + ConnsPath
	resp, err := countClient.Get(u)
	if err != nil {
		return 0, fmt.Errorf("bench server %s: connection count: %w", u, err)
	}
	defer resp.Body.Close()
	var n int64
	if _, err := fmt.Fscan(resp.Body, &n); err != nil {
		return 0, fmt.Errorf("bench server %s: connection count: %w", u, err)
	}
	return n, nil
}
