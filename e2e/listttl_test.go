package e2e_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server whose tools/list says ttlMs is not listed again by a restarted
// host serve while the list is fresh (SEP-2549): the catalog comes from the
// user's cache, and the tools still work.
func TestListTTLReuseAcrossRestart(t *testing.T) {
	url, lists := ttlServer(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"ttl": map[string]any{"transport": "http", "url": url},
	}}})
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "MCP_HOST_CACHE_DIR=" + filepath.Join(dir, "cache")}
	serveOnce := func(name string) int {
		t.Helper()
		h := startServe(t, env, "--allow", "ttl/*", "--permissions", filepath.Join(dir, "permissions.json"))
		ctx := ctxT(t, time.Minute)
		if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: name}}); err != nil {
			t.Fatal(err)
		}
		var tools int
		waitFor(t, 30*time.Second, name+": ttl ready", func() bool {
			st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "ttl"})
			if err == nil {
				tools = len(st.Server.ToolList)
			}
			return err == nil && st.Server.State == protocol.StateReady
		})
		res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "ttl", Tool: "beta"})
		if err != nil || len(res.Result.Content) == 0 || res.Result.Content[0].Text != "ok" {
			t.Fatalf("%s: calling beta: %v %+v", name, err, res)
		}
		h.stdin.Close()
		select {
		case err := <-h.exited:
			h.exited <- err
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: host serve did not exit", name)
		}
		return tools
	}
	if n := serveOnce("first"); n != 3 {
		t.Fatalf("first run: %d tools, want 3", n)
	}
	first := lists.Load()
	if first == 0 {
		t.Fatal("the first run never listed the tools")
	}
	if n := serveOnce("restart"); n != 3 {
		t.Fatalf("after the restart: %d tools, want 3", n)
	}
	if again := lists.Load() - first; again != 0 {
		t.Errorf("the restarted host listed the tools %d more times while its list was fresh, want 0", again)
	}
}

// ttlServer is a go-sdk server over Streamable HTTP whose tools/list (of
// alpha, beta and gamma) says ttlMs of an hour; it counts the tools/list
// requests it is sent.
func ttlServer(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "ttl", Version: "1"}, &mcp.ServerOptions{
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.GetParams().(*mcp.ListToolsParams); ok {
				c.TTLMs = int(time.Hour / time.Millisecond)
			}
		},
	})
	for _, name := range []string{"alpha", "beta", "gamma"} {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: "tool " + name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	}
	lists := new(atomic.Int32)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"tools/list"`)) {
				lists.Add(1)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL, lists
}

// host mcp call takes the tool's definition from the list cache while the
// server's list is fresh, as host serve does: a second call lists nothing.
// host mcp tools, which shows the catalog, lists it afresh.
func TestListTTLOneShotCallUsesTheCache(t *testing.T) {
	url, lists := ttlServer(t)
	h := newHostCLI(t)
	env := []string{"MCP_HOST_TOKEN_STORE=file", "MCP_HOST_CACHE_DIR=" + filepath.Join(t.TempDir(), "cache")}
	if out, errOut, code := h.run(t, env, "mcp", "add", "ttl", url); code != 0 {
		t.Fatalf("add: code %d\n%s%s", code, out, errOut)
	}
	call := func() {
		t.Helper()
		out, errOut, code := h.run(t, env, "mcp", "call", "ttl", "beta", "--yes")
		if code != 0 || !strings.Contains(out, "ok") {
			t.Fatalf("call: code %d\n%s%s", code, out, errOut)
		}
	}
	call()
	if n := lists.Load(); n != 1 {
		t.Fatalf("the first call listed %d times, want 1", n)
	}
	call()
	if n := lists.Load(); n != 1 {
		t.Errorf("the second call listed the tools again (%d lists in all) while the list was fresh", n)
	}
	if out, errOut, code := h.run(t, env, "mcp", "tools", "ttl"); code != 0 || !strings.Contains(out, "gamma") {
		t.Fatalf("tools: code %d\n%s%s", code, out, errOut)
	}
	if n := lists.Load(); n != 2 {
		t.Errorf("host mcp tools: %d lists in all, want 2 (it lists afresh)", n)
	}
}
