package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// host chat, under tmux, with the real vanillajs app server: a call of
// the app's tool says the tool has an app and how to see it.
func TestChatSaysToolHasApp(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	basic := testenv.NodeBin(t, "mcp-server-basic-vanillajs")
	bin := buildHost(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"basic": map[string]any{"transport": "stdio", "command": basic[0], "args": append(basic[1:], "--stdio")},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"name": adapter.PublicName("basic", "get-time"), "args": map[string]any{}}}},
		{"text": "It is later than you think."},
	})
	c := startChat(t, "mcp-host-apps-"+filepath.Base(dir), bin, dir, config, script, 160)

	c.waitText("servers: 1 ready")
	c.typeLine("what time is it?")
	c.waitText("Allow basic/get-time?")
	c.keys("o")
	screen := c.waitText("It is later than you think.")
	if !strings.Contains(screen, "get-time has an app (ui://get-time/mcp-app.html) that a terminal cannot show: run `host web` to use it in a browser") {
		t.Errorf("no app hint under the call:\n%s", screen)
	}
}
