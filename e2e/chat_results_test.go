package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// In host chat, a result cut at the output budget stays kept while the
// conversation goes on, and /new ends the conversation: the runtime
// removes the kept file (issue 24 item 4).
func TestChatNewRemovesKeptResults(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	bin := buildHost(t)
	prim := buildPrimServer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"bigsrv": map[string]any{"command": prim, "args": []string{"-big", "1048576"}, "trust": true, "max_output_tokens": 10_000},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		callStep(call("bigsrv/big", map[string]any{})),
		{"when_result_contains": "mcp_result_read", "text": "Kept the big result."},
		{"text": "Still here."},
	})
	c := startChatWith(t, chatLaunch{session: "mcp-host-chat-results-" + filepath.Base(dir), bin: bin, dir: dir, config: config,
		script: script, width: 120, height: 40, env: []string{"MCP_HOST_CACHE_DIR=" + cache}})
	c.waitText("servers: 1 ready")
	kept := func() int {
		ents, _ := os.ReadDir(filepath.Join(cache, "results"))
		return len(ents)
	}
	c.typeLine("get the big result")
	c.waitText("Kept the big result.")
	if n := kept(); n != 1 {
		t.Fatalf("%d kept results after the run, want 1", n)
	}
	c.typeLine("and then?")
	c.waitText("Still here.")
	if n := kept(); n != 1 {
		t.Fatalf("%d kept results while the conversation goes on, want 1", n)
	}
	c.typeLine("/new")
	c.waitText("new conversation")
	deadline := time.Now().Add(10 * time.Second)
	for kept() != 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := kept(); n != 0 {
		t.Errorf("%d kept results after /new, want none\n%s", n, c.screen())
	}
	if s := c.screen(); strings.Contains(s, "error") {
		t.Errorf("the chat shows an error:\n%s", s)
	}
}
