package e2e_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mcp-host/mcp-host/e2e/internal/hostile"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// protocolTextProblems lists the characters in s that the runtime promises
// never to put in a name or title it sends (PROTOCOL.md, "Server-controlled
// text"): controls (newlines and tabs included), bidi and other invisible
// format characters.
func protocolTextProblems(s string) []string {
	var out []string
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) {
			out = append(out, fmt.Sprintf("%U", r))
		}
	}
	return out
}

func checkProtocolText(t *testing.T, what, s string) {
	t.Helper()
	if p := protocolTextProblems(s); len(p) > 0 {
		t.Errorf("%s %q holds %v", what, s, p)
	}
}

// TestServeStripsHostileText drives `host serve` over the UI protocol
// against the hostile server: the confirm of a call names the real tool and
// carries the title and hints stripped of escape sequences, BEL, bidi and
// zero-width characters; the tool with a hostile name is offered neither to
// the model nor in tools.list, and a call of it never reaches the server.
func TestServeStripsHostileText(t *testing.T) {
	server := hostile.Command(t)
	dir := t.TempDir()
	config := dir + "/config.json"
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"hostile": map[string]any{"transport": "stdio", "command": server[0], "args": server[1:]},
	}}})
	spoofed := adapter.PublicName("hostile", hostile.ToolSpoofed)
	bad := adapter.PublicName("hostile", hostile.ToolBadName)
	script := dir + "/script.json"
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"name": spoofed, "args": map[string]any{"path": "/" + hostile.RLO}}, {"name": bad}}},
		{"text": "done"},
	})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--script", script, "--permissions", dir+"/permissions.json")
	ctx := ctxT(t, 2*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"},
		Capabilities: protocol.UICapabilities{Confirm: true},
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "hostile ready", func() bool {
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		return err == nil && len(l.Servers) == 1 && l.Servers[0].State == protocol.StateReady
	})

	// tools.list: the hostile name is not offered.
	tl, err := h.rt.ToolsList(ctx, &protocol.ToolsListParams{Server: "hostile"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ti := range tl.Tools {
		names = append(names, ti.Tool)
		checkProtocolText(t, "tools.list public name", ti.PublicName)
		checkProtocolText(t, "tools.list tool name", ti.Tool)
	}
	if strings.Contains(strings.Join(names, ","), "read") || len(names) != 5 {
		t.Errorf("tools.list offers %q", names)
	}
	if !strings.Contains(strings.Join(tl.Problems, "\n"), `has control or invisible characters in its name; skipped`) {
		t.Errorf("tools.list problems do not say why a tool is missing: %q", tl.Problems)
	}

	// tool.call refuses it, and says so without the escapes.
	if _, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "hostile", Tool: hostile.ToolBadName}); err == nil ||
		!strings.Contains(err.Error(), "control or invisible characters") {
		t.Errorf("tool.call of the hostile name: %v", err)
	} else {
		checkProtocolText(t, "tool.call error", err.Error())
	}

	// A run calls the spoofed tool (asked) and the hostile name (refused).
	h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	run, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "read the readme"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the run to end", func() bool { _, ok := h.ui.finalRun(run.RunID); return ok })
	h.ui.mu.Lock()
	confirms := append([]protocol.ConfirmParams(nil), h.ui.confirms...)
	h.ui.mu.Unlock()
	if len(confirms) != 1 {
		t.Fatalf("%d confirms, want 1 (the hostile name must not get one)", len(confirms))
	}
	c := confirms[0]
	ct := c.Tool
	if ct.Server != "hostile" || ct.Tool != hostile.ToolSpoofed || ct.PublicName != spoofed {
		t.Errorf("confirm identity: server %q tool %q public %q", ct.Server, ct.Tool, ct.PublicName)
	}
	if ct.Title != "  tool:   read_readme" {
		t.Errorf("confirm title = %q", ct.Title)
	}
	if !strings.Contains(c.Title, hostile.ToolSpoofed) {
		t.Errorf("the confirm's title %q does not name the real tool", c.Title)
	}
	for what, s := range map[string]string{"title": c.Title, "tool title": ct.Title, "tool": ct.Tool, "server": ct.Server, "public name": ct.PublicName} {
		checkProtocolText(t, "confirm "+what, s)
	}
	for what, s := range map[string]string{"message": c.Message, "arguments": ct.Arguments} {
		checkProtocolText(t, "confirm "+what, strings.NewReplacer("\n", "", "\t", "").Replace(s))
	}
	for _, e := range h.ui.runEvents(run.RunID) {
		if e.Type == protocol.EventToolResult && e.Result != nil {
			raw, _ := json.Marshal(e.Result)
			if strings.Contains(string(raw), "the tool with a hostile name ran") {
				t.Errorf("the tool with a hostile name ran: %s", raw)
			}
		}
	}
}
