package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/hostile"
)

// hostileCLI is the host binary with a global config holding the hostile
// server over stdio ("hostile"), over Streamable HTTP ("remote") and as
// the copy that crashes with payloads on stderr ("crashy"), and a project
// file whose server's command and args carry payloads ("cloned").
func hostileCLI(t *testing.T) *hostCLI {
	t.Helper()
	h := newHostCLI(t)
	server := hostile.Command(t)
	writeJSONFile(t, h.global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"hostile": map[string]any{"transport": "stdio", "command": server[0], "args": server[1:]},
		"crashy":  map[string]any{"transport": "stdio", "command": server[0], "args": append(server[1:], "-crash")},
		"remote":  map[string]any{"transport": "http", "url": hostile.StartHTTP(t)},
	}}})
	writeJSONFile(t, filepath.Join(h.dir, ".mcp-host", "config.json"), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"cloned": map[string]any{"transport": "stdio", "command": "sh" + hostile.SetTitle, "args": []string{"-c", "true" + hostile.Payload}},
	}}})
	return h
}

// TestCLIHostileServer runs `host mcp list/get/test/tools/call` against
// the hostile server over stdio and HTTP: whatever the server (or a
// cloned project file) says, no escape sequence, BEL, C1 control, bidi or
// invisible character reaches stdout or stderr, in text and in --json
// output, and what it says is still shown, stripped. JSON output keeps
// the server's strings exactly, every control written as a \u escape, and
// so does the definition of a project server awaiting approval (the user
// must see exactly what would run): the word PWNED may show there as text
// (inside "\u001b]0;PWNED\u0007"), never as a sequence a terminal runs.
func TestCLIHostileServer(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	h := hostileCLI(t)
	env := []string{"MCP_HOST_TOKEN_STORE=file"}
	run := func(want []string, args ...string) string {
		t.Helper()
		out, errOut, code := h.run(t, env, args...)
		all := out + errOut
		screen := all
		if slices.Contains(args, "--json") || slices.Contains(args, "cloned") {
			screen = strings.ReplaceAll(out, hostile.Pwned, "") + errOut
		}
		if p := hostile.CheckScreen(screen, false); len(p) > 0 {
			t.Errorf("host %s (exit %d): hostile text reached the terminal:\n%s\noutput:\n%q", strings.Join(args, " "), code, strings.Join(p, "\n"), all)
		}
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("host %s (exit %d) does not show %q:\n%s", strings.Join(args, " "), code, w, all)
			}
		}
		return out
	}

	run([]string{"cloned", "NOT APPROVED"}, "mcp", "list")
	run([]string{`"cloned"`}, "mcp", "list", "--json")
	run([]string{"approval_required", `definition:  args: ["-c","true\u001b]0;PWNED\u0007`}, "mcp", "get", "cloned")
	for _, id := range []string{"hostile", "remote"} {
		run([]string{"server:", hostile.ServerName, hostile.ServerVersion}, "mcp", "get", id)
		// The server's instructions, stripped, as the model gets them.
		run([]string{"instructions (the server's text, given to the model):", hostile.Instructions}, "mcp", "get", id)
		var got struct {
			ServerName string `json:"server_name"`
		}
		if out := run([]string{hostile.ServerName}, "mcp", "get", id, "--json"); json.Unmarshal([]byte(out), &got) != nil || got.ServerName != hostile.ServerName+hostile.Payload {
			t.Errorf("mcp get %s --json: server_name %q, want the server's exact string %q", id, got.ServerName, hostile.ServerName+hostile.Payload)
		}
		run([]string{"ok: " + id + " is ready", hostile.ServerName}, "mcp", "test", id)
		run([]string{id + "/" + hostile.ToolSpoofed, "Reads the README."}, "mcp", "tools", id)
		run([]string{hostile.ToolSpoofed}, "mcp", "tools", id, "--json")
		run([]string{"Echo: hithere", hostile.EchoEnd}, "mcp", "call", id, hostile.ToolEcho, "--args", `{"message":"hi`+hostile.RLO+`there"}`, "--yes")
		run([]string{"Echo: hi"}, "mcp", "call", id, hostile.ToolEcho, "--args", `{"message":"hi"}`, "--yes", "--json")
		run([]string{hostile.SpoofedResult}, "mcp", "call", id, hostile.ToolSpoofed, "--yes")
		run([]string{"tool error", hostile.FailText}, "mcp", "call", id, hostile.ToolFail, "--yes")
		run([]string{hostile.ProtocolErrorText}, "mcp", "call", id, hostile.ToolProtocolError, "--yes")
		out := run(nil, "mcp", "call", id, hostile.ToolBadName, "--yes")
		if strings.Contains(out, "the tool with a hostile name ran") {
			t.Errorf("host mcp call ran the tool with a hostile name:\n%s", out)
		}
	}
	out := run([]string{hostile.StderrLine + ": starting"}, "mcp", "get", "hostile")
	if !strings.Contains(out, "stderr (tail):") {
		t.Errorf("mcp get hostile shows no stderr tail:\n%s", out)
	}
	run([]string{"failed: crashy", hostile.StderrLine}, "mcp", "test", "crashy")
	run([]string{"last error:"}, "mcp", "get", "crashy")
	out = run([]string{hostile.ToolSpoofed}, "mcp", "tools")
	if strings.Contains(out, "hostile/read") {
		t.Errorf("mcp tools lists the tool with a hostile name:\n%s", out)
	}
}

// TestCLIHostileConfirm runs `host mcp call hostile delete_everything`
// without --yes in a tmux pane: the question names the real tool first,
// the spoofed title appears only as the server's claim, no escape sequence
// reaches the pane (its title and bell flag stay), and answering no calls
// nothing.
func TestCLIHostileConfirm(t *testing.T) {
	requireTmux(t)
	h := hostileCLI(t)
	c := &tmuxChat{t: t, session: "mcp-host-cli-confirm-" + filepath.Base(filepath.Dir(h.dir))}
	result := filepath.Join(filepath.Dir(h.dir), "exit-code")
	call := strings.Join([]string{
		"cd", h.dir, "&&", "env", "MCP_HOST_CONFIG=" + h.global, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file",
		h.bin, "mcp", "call", "hostile", hostile.ToolSpoofed, "--args", `'{"path":"/"}'`, ";", "echo", "$?", ">", result, ";", "sleep", "60",
	}, " ")
	shell := `printf '\033]2;` + paneTitle + `\033\\'; sleep 0.5; ` + call
	c.tmux("new-session", "-d", "-s", c.session, "-x", "160", "-y", "50", "sh", "-c", shell)
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", c.session).Run() })
	display := func(format string) string {
		return strings.TrimSpace(c.tmux("display-message", "-p", "-t", c.session, format))
	}
	screen := c.waitText("deny with [r]eason [o/t/s/r/D]") // the answers host chat offers
	colored := c.tmux("capture-pane", "-t", c.session, "-p", "-e", "-J", "-S", "-1000")
	if p := hostile.CheckScreen(colored, true); len(p) > 0 {
		t.Errorf("hostile text reached the pane:\n%s\nscreen:\n%s", strings.Join(p, "\n"), screen)
	}
	if got := display("#{pane_title}"); got != paneTitle {
		t.Errorf("the pane title changed to %q", got)
	}
	if got := display("#{window_bell_flag}"); got != "0" {
		t.Errorf("the bell rang (window_bell_flag %s)", got)
	}
	for _, want := range []string{
		`Allow tool "` + hostile.ToolSpoofed + `" of server "hostile"?`,
		"Claimed by the server (untrusted):",
		`title: "  tool:   read_readme"`,
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the question lacks %q:\n%s", want, screen)
		}
	}
	claims := strings.Index(screen, "Claimed by the server")
	if i := strings.Index(screen, hostile.ToolSpoofed); claims < 0 || i < 0 || i > claims {
		t.Errorf("the real tool name does not come before the server's claims:\n%s", screen)
	}
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "tool:") {
			t.Errorf("a line of the question reads like the host's own %q:\n%s", l, screen)
		}
	}
	c.keys("n", "Enter")
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(result)
		if err == nil && strings.TrimSpace(string(b)) != "" {
			if code := strings.TrimSpace(string(b)); code != "4" {
				t.Errorf("answering no: exit code %s, want 4", code)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("host mcp call did not end after the answer:\n%s", c.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if screen := c.screen(); strings.Contains(screen, hostile.SpoofedResult) {
		t.Errorf("the call ran although the answer was no:\n%s", screen)
	}
}
