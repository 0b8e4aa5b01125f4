package serve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goSDKHandler is a Streamable HTTP MCP server with one tool.
func goSDKHandler() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// goSDKServer serves goSDKHandler on loopback and returns its URL.
func goSDKServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(goSDKHandler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestReloadKeepsServersOfAHalfWrittenFile: saving a config file half
// written (an editor's partial save) keeps its servers connected with the
// file's error in their status, instead of closing them until the file is
// fixed; mcp.disable survives the reloads.
func TestReloadKeepsServersOfAHalfWrittenFile(t *testing.T) {
	url := goSDKServer(t)
	dir := t.TempDir()
	global := filepath.Join(dir, "config.json")
	good := `{"version":1,"mcp":{"servers":{"a":{"url":"` + url + `"},"b":{"url":"` + url + `"}}}}`
	write := func(s string) {
		if err := os.WriteFile(global, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	rt, _, _ := start(t, serve.ServeOptions{Config: config.LoadOptions{GlobalPath: global}, WatchInterval: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		t.Fatal(err)
	}
	get := func(id string) protocol.ServerStatus {
		g, err := rt.MCPGet(ctx, &protocol.ServerParams{ID: id})
		if err != nil {
			t.Fatalf("mcp.get %s: %v", id, err)
		}
		return g.Server.ServerStatus
	}
	waitUntil := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitUntil("a ready", func() bool { return get("a").State == protocol.StateReady })
	if _, err := rt.MCPDisable(ctx, &protocol.ServerParams{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	session := get("a").SessionID

	write(good[:len(good)/2]) // the editor saved half the file
	waitUntil("a warning about the broken file", func() bool {
		return strings.Contains(strings.Join(get("a").Warnings, " "), global)
	})
	if st := get("a"); st.State != protocol.StateReady || st.SessionID != session {
		t.Errorf("a half-written file closed or reconnected its server: %+v", st)
	}
	if _, err := rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "a", Tool: "echo", Arguments: []byte(`{"text":"still"}`)}); code(err) != protocol.CodeDenied {
		// No UI confirm declared and no rule: the gate denies, which
		// shows the server is still there (not -32002/-32003).
		t.Errorf("tool.call on a kept server: %v", err)
	}

	write(good) // fixed
	waitUntil("the warning gone", func() bool { return len(get("a").Warnings) == 0 })
	if st := get("b"); st.State != protocol.StateDisabled {
		t.Errorf("config reloads undid mcp.disable: b is %s", st.State)
	}
}
