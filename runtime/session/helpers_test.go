package session_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text"`
}

// testServer is an in-process go-sdk server behind a Streamable HTTP handler
// that a test can swap (to make the server forget its sessions) and whose
// requests it can observe.
type testServer struct {
	server  *mcp.Server
	http    *httptest.Server
	handler atomic.Pointer[http.Handler]

	mu      sync.Mutex
	headers []http.Header // headers of every POST
	deletes []string      // session ids of every DELETE
	// block is closed to release calls of the "block" tool.
	block     chan struct{}
	cancelled chan struct{} // closed when a "block" call's ctx ends
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{block: make(chan struct{}), cancelled: make(chan struct{})}
	ts.server = mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1.2.3"}, nil)
	mcp.AddTool(ts.server, &mcp.Tool{Name: "echo", Description: "echoes"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	var once sync.Once
	mcp.AddTool(ts.server, &mcp.Tool{Name: "block", Description: "blocks until released or cancelled"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case <-ts.block:
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
		case <-ctx.Done():
			once.Do(func() { close(ts.cancelled) })
			return nil, nil, ctx.Err()
		}
	})
	ts.resetSessions()
	ts.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			ts.mu.Lock()
			ts.deletes = append(ts.deletes, r.Header.Get("Mcp-Session-Id"))
			ts.mu.Unlock()
		}
		if r.Method == http.MethodPost {
			ts.mu.Lock()
			ts.headers = append(ts.headers, r.Header.Clone())
			ts.mu.Unlock()
		}
		(*ts.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(ts.http.Close)
	return ts
}

// resetSessions installs a fresh handler that knows no session, as after a
// server restart: known session ids now get 404.
func (ts *testServer) resetSessions() {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ts.server }, nil)
	ts.handler.Store(&h)
}

func (ts *testServer) url() string { return ts.http.URL }

func (ts *testServer) postHeaders() []http.Header {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]http.Header(nil), ts.headers...)
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) != 1 {
		t.Fatalf("result = %+v, want one content block", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content = %T, want text", res.Content[0])
	}
	return tc.Text
}
