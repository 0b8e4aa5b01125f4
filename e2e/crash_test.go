package e2e_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// staticBearerServers starts a go-sdk server behind a static bearer check,
// over Streamable HTTP, over legacy SSE, and over legacy SSE only (an http
// server that refuses the first POST, so the host falls back).
func staticBearerServers(t *testing.T, token string) (streamable, sse, fallback string) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "static", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	guard := func(h http.Handler) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	get := func(*http.Request) *mcp.Server { return s }
	sseHandler := mcp.NewSSEHandler(get, nil)
	onlySSE := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") == "" {
			http.Error(w, "use SSE", http.StatusMethodNotAllowed)
			return
		}
		sseHandler.ServeHTTP(w, r)
	})
	return guard(mcp.NewStreamableHTTPHandler(get, nil)), guard(sseHandler), guard(onlySSE)
}

// TestStaticBearerServersDoNotCrashTheHost is issue 12 item 1 as a user met
// it: servers configured with a static "Authorization: Bearer" header over
// sse, over the automatic SSE fallback and over Streamable HTTP. host serve
// crashed at start-up (a nil pointer in the OAuth transport hook) before
// answering initialize; now it answers and every server is ready, and the
// CLI reaches each one.
func TestStaticBearerServersDoNotCrashTheHost(t *testing.T) {
	const token = "static-configured-token-123"
	streamable, sse, fallback := staticBearerServers(t, token)
	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	auth := map[string]any{"Authorization": "Bearer ${E2E_STATIC_TOKEN}"}
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"streamable": map[string]any{"transport": "http", "url": streamable + "/", "headers": auth},
		"sse":        map[string]any{"transport": "sse", "url": sse + "/", "headers": auth},
		"fallback":   map[string]any{"transport": "http", "url": fallback + "/", "headers": auth},
	}}})
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "E2E_STATIC_TOKEN=" + token}

	h := startServe(t, env)
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	states := map[string]string{}
	waitFor(t, 30*time.Second, "every server ready", func() bool {
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			t.Fatalf("mcp.list: %v (host serve exited: %v)", err, h.cmd.ProcessState)
		}
		ready := 0
		for _, s := range l.Servers {
			states[s.ID] = s.State + " " + s.LastError
			if s.State == protocol.StateReady {
				ready++
			}
		}
		return ready == 3
	})
	if t.Failed() {
		t.Logf("states: %v", states)
	}

	for _, id := range []string{"streamable", "sse", "fallback"} {
		cmd := exec.Command(buildHost(t), "mcp", "test", id)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("host mcp test %s: %v\n%s", id, err, out)
		}
	}
}
