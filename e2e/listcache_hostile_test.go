package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// Files the host reads back are input too. A list-cache entry planted on
// disk before host serve starts, under the right key (a file name and key
// field the host wrote itself), with a tool nesting 3,000,000 arrays, or
// valid but expiring in the year 2999: host serve starts, the server is
// listed afresh (a miss), its real tools are shown and work. Before the
// cache's reader was bounded, the nested entry killed host serve with a
// stack overflow on every start, and the far-future one was served as
// written.
func TestListCachePlantedEntriesAreMisses(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	url, lists := ttlServer(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"ttl": map[string]any{"transport": "http", "url": url},
	}}})
	cache := filepath.Join(dir, "cache")
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "MCP_HOST_CACHE_DIR=" + cache}
	serve := func(name string) []string {
		t.Helper()
		h := startServe(t, env, "--allow", "ttl/*", "--permissions", filepath.Join(dir, "permissions.json"))
		ctx := ctxT(t, time.Minute)
		if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: name}}); err != nil {
			t.Fatalf("%s: initialize: %v\n%s", name, err, h.stderr.String())
		}
		var tools []string
		waitFor(t, 30*time.Second, name+": ttl ready", func() bool {
			st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "ttl"})
			if err != nil {
				t.Fatalf("%s: mcp.get: %v (host serve exited?)", name, err)
			}
			tools = tools[:0]
			for _, tl := range st.Server.ToolList {
				tools = append(tools, tl.Tool)
			}
			return st.Server.State == protocol.StateReady
		})
		res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "ttl", Tool: "beta"})
		if err != nil || len(res.Result.Content) == 0 || res.Result.Content[0].Text != "ok" {
			t.Fatalf("%s: calling beta: %v %+v", name, err, res)
		}
		h.stdin.Close()
		select {
		case err := <-h.exited:
			if err != nil {
				t.Errorf("%s: host serve exited with %v", name, err)
			}
			h.exited <- err
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: host serve did not exit", name)
		}
		slices.Sort(tools)
		return tools
	}
	want := []string{"alpha", "beta", "gamma"}
	if got := serve("first"); !slices.Equal(got, want) {
		t.Fatalf("first run: tools %v, want %v", got, want)
	}
	// The file the host wrote: its name and key field are the right ones.
	files, _ := filepath.Glob(filepath.Join(cache, "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	var written struct {
		Key string `json:"key"`
	}
	if raw, err := os.ReadFile(files[0]); err != nil || json.Unmarshal(raw, &written) != nil || written.Key == "" {
		t.Fatalf("the cache file: %v", err)
	}
	plant := func(expires time.Time, schema []byte) {
		t.Helper()
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"key":%q,"expires_at":%q,"tools":[{"name":"planted","inputSchema":`, written.Key, expires.UTC().Format(time.RFC3339))
		b.Write(schema)
		b.WriteString(`}]}`)
		if err := os.WriteFile(files[0], b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name    string
		expires time.Time
		schema  []byte
	}{
		{"far-future", time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC), []byte(`{"type":"object"}`)},
		{"nested", time.Now().Add(time.Hour), append(bytes.Repeat([]byte{'['}, 3_000_000), bytes.Repeat([]byte{']'}, 3_000_000)...)},
	} {
		plant(c.expires, c.schema)
		before := lists.Load()
		if got := serve(c.name); !slices.Equal(got, want) {
			t.Errorf("%s: tools %v, want %v (the planted entry was served)", c.name, got, want)
		}
		if lists.Load() == before {
			t.Errorf("%s: the server was not listed afresh", c.name)
		}
	}
}
