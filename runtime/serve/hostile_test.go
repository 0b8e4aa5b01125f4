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

// badName is a tool name with an OSC title sequence, BEL and a bidi
// override in it.
const badName = "read\x1b]0;PWNED\x07\u202e"

// mcp.get lists a server's tools as tools.list offers them: a tool whose
// name holds controls or invisible characters is left out (the user would
// read one name and call another), and the server's warnings say so with
// the name stripped.
func TestMCPGetLeavesOutHostileToolNames(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, nil)
	empty := map[string]any{"type": "object"}
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: empty}, handler)
	s.AddTool(&mcp.Tool{Name: badName, InputSchema: empty}, handler)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)

	global := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(global, []byte(`{"version":1,"mcp":{"servers":{"h":{"url":"`+srv.URL+`"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, _, _ := start(t, serve.ServeOptions{Config: config.LoadOptions{GlobalPath: global}, WatchInterval: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		t.Fatal(err)
	}
	var d protocol.ServerDetail
	for {
		g, err := rt.MCPGet(ctx, &protocol.ServerParams{ID: "h"})
		if err != nil {
			t.Fatal(err)
		}
		if d = g.Server; d.State == protocol.StateReady || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var names []string
	for _, tool := range d.ToolList {
		names = append(names, tool.Tool)
	}
	if len(names) != 1 || names[0] != "ok" {
		t.Errorf("tool_list = %q, want only ok", names)
	}
	warnings := strings.Join(d.Warnings, "\n")
	if !strings.Contains(warnings, `"read"`) || strings.ContainsAny(warnings, "\x1b\x07\u202e") || strings.Contains(warnings, "PWNED") {
		t.Errorf("warnings do not say, stripped, which tool was left out: %q", d.Warnings)
	}
}
