package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// TestChatPromptsAndAttachments drives host chat under tmux with the real
// server-everything: Tab completes /everything: to a prompt, a prompt's
// argument names and values (the second narrowed by the first), and an
// @everything: resource through its template; the prompt runs as the
// user's message (the transcript says where it came from) and the
// attachment reaches the scripted model; /watch shows a resource's change.
func TestChatPromptsAndAttachments(t *testing.T) {
	requireTmux(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := buildHost(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, primitivesScript)
	c := startChat(t, "mcp-host-chatprim-"+filepath.Base(dir), bin, dir, config, script, 140)
	c.waitText("servers: 1 ready")

	// A prompt's name by Tab, then run.
	c.keys("-l", "/everything:simp")
	c.keys("Tab")
	c.waitText("> /everything:simple-prompt ")
	c.keys("Enter")
	c.waitText("from everything:simple-prompt:")
	c.waitText("user: This is a simple prompt without arguments.")
	c.waitText("saw the simple prompt")

	// Argument names and values by Tab; the value of name depends on the
	// department chosen.
	c.keys("-l", "/everything:completable-prompt dep")
	c.keys("Tab")
	c.waitText("> /everything:completable-prompt department=")
	c.keys("-l", "Sa")
	c.keys("Tab")
	c.waitText("department=Sales ")
	c.keys("-l", "name=")
	c.keys("Tab")
	c.waitText("name=David  name=Eve  name=Frank")
	c.keys("-l", "E")
	c.keys("Tab")
	c.waitText("> /everything:completable-prompt department=Sales name=Eve ")
	c.keys("Enter")
	c.waitText("user: Please promote Eve to the head of the Sales team.")
	c.waitText("saw neither")

	// An attachment through the template.
	c.keys("-l", "what does @everything:demo://resource/dyn")
	c.keys("Tab")
	c.waitText("> what does @everything:demo://resource/dynamic/")
	// The template's variable is typed (its completion by the server is
	// covered over the protocol: TestResourcesForTheApplication).
	c.keys("-l", "text/2 say?")
	c.keys("Enter")
	c.waitText("attached everything:demo://resource/dynamic/text/2")
	screen := c.waitText("saw the attachment")

	// A watched resource: server-everything reports changes once its
	// toggle-subscriber-updates tool ran (the model calls it here).
	c.typeLine("/watch @everything:demo://resource/dynamic/text/2")
	c.waitText("watching everything:demo://resource/dynamic/text/2")
	c.typeLine("turn on updates")
	c.waitText("Allow everything/toggle-subscriber-updates?")
	c.keys("o")
	c.waitText("updates are on")
	c.waitText("everything:demo://resource/dynamic/text/2 changed")
	if strings.Contains(screen, "unknown command") {
		t.Errorf("the chat took a prompt for an unknown command:\n%s", screen)
	}
}
