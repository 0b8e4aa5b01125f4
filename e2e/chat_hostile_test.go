package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/hostile"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// paneTitle is the title the test gives the pane before host chat starts;
// an OSC sequence that reached the terminal would replace it.
const paneTitle = "mcp-host-e2e-title"

// TestChatHostileServer runs host chat in tmux against the hostile server
// (escape sequences, BEL, U+202E and zero-width characters in its name,
// version, instructions, tool names, titles, descriptions, results, errors,
// elicitation and stderr) and a copy of it that crashes with such stderr.
// It walks every surface (the permission prompt, tool calls and results,
// an error result, a JSON-RPC error, an elicitation, the model's answer,
// /mcp, /mcp <id> with the stderr tail, /tools) and checks the screen with
// its attributes (capture-pane -e): no escape sequence but tmux's own
// colours, no BEL, no bidi or invisible character, the pane title and
// bell flag untouched, and the permission prompt naming the real tool.
func TestChatHostileServer(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	bin := buildHost(t)
	server := hostile.Command(t)

	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"hostile": map[string]any{"transport": "stdio", "command": server[0], "args": server[1:]},
		"crashy":  map[string]any{"transport": "stdio", "command": server[0], "args": append(server[1:], "-crash")},
	}}})
	tool := func(name string) string { return adapter.PublicName("hostile", name) }
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"text": "Let me read the README first.", "calls": []map[string]any{{"name": tool(hostile.ToolSpoofed), "args": map[string]any{"path": "/"}}}},
		{"calls": []map[string]any{
			{"name": tool(hostile.ToolEcho), "args": map[string]any{"message": "hi" + hostile.RLO + "there"}},
			{"name": tool(hostile.ToolFail)},
			{"name": tool(hostile.ToolProtocolError)},
			{"name": tool(hostile.ToolBadName)},
		}},
		{"calls": []map[string]any{{"name": tool(hostile.ToolAsk)}}},
		// The model repeats what a server told it: its answer is untrusted too.
		{"text": "All done." + hostile.Payload + " Really done."},
	})
	c := &tmuxChat{t: t, session: "mcp-host-hostile-" + filepath.Base(dir)}
	chat := strings.Join([]string{
		"env", "MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "DISPLAY=", "WAYLAND_DISPLAY=",
		"PATH=" + os.Getenv("PATH"), "MCP_HOST_CACHE_DIR=" + filepath.Join(dir, "cache"), uiDebugEnv,
		bin, "chat", "--script", script, "--permissions", filepath.Join(dir, "permissions.json"), "--log", filepath.Join(dir, "chat.log"),
	}, " ")
	// The pane sets its own title first, then runs chat; the test waits
	// for that title, which also shows this tmux obeys OSC titles.
	shell := `printf '\033]2;` + paneTitle + `\033\\'; sleep 0.5; exec ` + chat
	c.tmux("new-session", "-d", "-s", c.session, "-x", "160", "-y", "50", "sh", "-c", shell)
	t.Cleanup(func() {
		_ = exec.Command("tmux", "kill-session", "-t", c.session).Run()
		checkOwnUI(t, "host chat", filepath.Join(dir, "chat.log"))
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "chat.log"))
			t.Logf("runtime log:\n%s", log)
		}
	})
	display := func(format string) string {
		return strings.TrimSpace(c.tmux("display-message", "-p", "-t", c.session, format))
	}
	deadline := time.Now().Add(10 * time.Second)
	for display("#{pane_title}") != paneTitle {
		if time.Now().After(deadline) {
			t.Fatalf("tmux did not take the pane title from OSC 2: %q; the test could not see a change", display("#{pane_title}"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// colored is the pane with its attributes (SGR sequences from tmux).
	colored := func() string {
		return c.tmux("capture-pane", "-t", c.session, "-p", "-e", "-J", "-S", "-1000")
	}
	check := func(step string) {
		t.Helper()
		if p := hostile.CheckScreen(colored(), true); len(p) > 0 {
			t.Errorf("%s: hostile text reached the screen:\n%s\nscreen:\n%s", step, strings.Join(p, "\n"), c.screen())
		}
		if got := display("#{pane_title}"); got != paneTitle {
			t.Errorf("%s: the pane title changed to %q", step, got)
		}
		if got := display("#{window_bell_flag}"); got != "0" {
			t.Errorf("%s: the bell rang (window_bell_flag %s)", step, got)
		}
	}

	c.waitFor("hostile ready and crashy failed", func(s string) bool { return strings.Contains(s, "servers: 1 ready, 1 error") })
	check("start")
	c.waitText("crashy: error")

	// The permission prompt names the real tool; the title is the
	// server's claim.
	c.typeLine("please read the readme")
	screen := c.waitText("[o]nce  always this [t]ool")
	check("permission prompt")
	for _, want := range []string{
		"Allow hostile/" + hostile.ToolSpoofed + "?",
		"server hostile · tool " + hostile.ToolSpoofed + " · public name " + tool(hostile.ToolSpoofed),
		`claimed by the server, untrusted: title "  tool:   read_readme"; hints: read-only, open world`,
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the permission prompt lacks %q:\n%s", want, screen)
		}
	}
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " │"), "tool:") {
			t.Errorf("a line of the prompt reads like the host's own %q", l)
		}
	}
	c.keys("s") // always this server: the calls that follow run unasked

	c.waitText("← hostile/" + hostile.ToolSpoofed + ": " + hostile.SpoofedResult)
	screen = c.waitText(hostile.AskText)
	check("elicitation")
	if !strings.Contains(screen, "name (string) your name") {
		t.Errorf("the elicitation field is not shown:\n%s", screen)
	}
	c.typeLine("bob")
	screen = c.waitText("Really done.")
	check("answer")
	for _, want := range []string{
		"← hostile/echo: Echo: hithere", hostile.EchoEnd,
		"← hostile/fail: " + hostile.FailText,
		hostile.ProtocolErrorText,
		"← hostile/ask: Hello, bob",
		"All done.",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "the tool with a hostile name ran") {
		t.Errorf("the tool with a hostile name was called:\n%s", screen)
	}

	c.typeLine("/mcp")
	c.waitText("TRANSPORT")
	check("/mcp")
	c.typeLine("/mcp hostile")
	screen = c.waitText("stderr (tail):")
	check("/mcp hostile")
	for _, want := range []string{"implementation:    " + hostile.ServerName, hostile.ServerVersion, hostile.StderrLine + ": " + hostile.ToolAsk} {
		if !strings.Contains(screen, want) {
			t.Errorf("/mcp hostile lacks %q:\n%s", want, screen)
		}
	}
	c.typeLine("/mcp crashy")
	c.waitText("last error:")
	check("/mcp crashy")
	c.typeLine("/tools hostile")
	// /tools leads with server/tool and its description; the public name
	// the model sees comes last.
	row := regexp.MustCompile(`hostile/` + hostile.ToolSpoofed + `\s+(.*)`)
	lastBox := func(s string) string { return s[max(strings.LastIndex(s, "╭"), 0):] }
	screen = c.waitFor("the /tools list", func(s string) bool {
		return strings.Contains(lastBox(s), "tools (/tools") && row.MatchString(lastBox(s))
	})
	check("/tools")
	box := lastBox(screen)
	if m := row.FindStringSubmatch(box); !strings.HasPrefix(m[1], "Reads the README.") {
		t.Errorf("/tools shows the description as %q:\n%s", m[1], screen)
	}
	if strings.Contains(box, "read_0_pwned") || strings.Contains(box, "hostile/read") {
		t.Errorf("/tools offers the tool with a hostile name:\n%s", box)
	}

	c.typeLine("/quit")
	deadline = time.Now().Add(20 * time.Second)
	for exec.Command("tmux", "has-session", "-t", c.session).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("chat did not quit:\n%s", c.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
