package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chatExits runs host chat in tmux with args after "chat" and returns the
// screen once it has exited (the pane stays, with the exit code).
func chatExits(t *testing.T, session string, args ...string) string {
	t.Helper()
	requireTmux(t)
	dir := t.TempDir()
	cmd := strings.Join(append([]string{"env", "MCP_HOST_CONFIG=" + filepath.Join(dir, "config.json"), "MCP_HOST_SERVERS=", "MCP_HOST_MODEL=",
		"PATH=" + os.Getenv("PATH"), buildHost(t), "chat", "--log", filepath.Join(dir, "chat.log")}, args...), " ")
	session += "-" + filepath.Base(filepath.Dir(dir)) // unique: tmux sessions are shared
	c := &tmuxChat{t: t, session: session}
	c.tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", cmd+`; echo "exit code $?"; sleep 60`)
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", session).Run() })
	return c.waitText("exit code")
}

// TestChatShowsWhyRuntimeDidNotStart: a --script file that is missing or
// malformed stops host serve, and host chat says what host serve said, not
// only that the connection closed.
func TestChatShowsWhyRuntimeDidNotStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"text": `), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, script, want string }{
		{"missing", filepath.Join(dir, "nope.json"), "nope.json: no such file or directory"},
		{"malformed", bad, "parse script: unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			screen := chatExits(t, "startup-"+tc.name, "--script", tc.script)
			flat := strings.Join(strings.Fields(screen), " ")
			if !strings.Contains(flat, tc.want) || !strings.Contains(flat, "exit code 1") {
				t.Errorf("host chat with a %s script shows:\n%s\nwant the runtime's own error %q", tc.name, screen, tc.want)
			}
			if strings.Contains(flat, "chat: chat:") {
				t.Errorf("the error repeats its prefix:\n%s", screen)
			}
		})
	}
}

// TestChatNoModelNamesChatFlag: a prompt in host chat without a model is
// answered with host chat's own flags, not with a host serve command line
// the person never ran.
func TestChatNoModelNamesChatFlag(t *testing.T) {
	requireTmux(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{}}})
	c := &tmuxChat{t: t, session: "mcp-host-nomodel-" + filepath.Base(filepath.Dir(dir))}
	cmd := strings.Join([]string{"env", "MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_MODEL=", "OPENAI_API_KEY=",
		"PATH=" + os.Getenv("PATH"), buildHost(t), "chat", "--log", filepath.Join(dir, "chat.log")}, " ")
	c.tmux("new-session", "-d", "-s", c.session, "-x", "100", "-y", "30", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", c.session).Run() })
	c.waitText("No model is configured")
	c.typeLine("hello")
	screen := c.waitFor("the answer to a prompt without a model", func(s string) bool { return strings.Contains(s, "no model:") })
	flat := strings.Join(strings.Fields(screen), " ")
	if strings.Contains(flat, "host serve") || !strings.Contains(flat, "host chat --model") {
		t.Errorf("without a model a prompt gets:\n%s\nwant host chat's flags (host chat --model NAME), not host serve", screen)
	}
}

// TestWebShowsWhyRuntimeDidNotStart: host web with a missing --script file
// says what host serve said.
func TestWebShowsWhyRuntimeDidNotStart(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(buildHost(t), "web", "--no-browser", "--script", filepath.Join(dir, "nope.json"), "--log", filepath.Join(dir, "web.log"))
	cmd.Env = append(os.Environ(), "MCP_HOST_CONFIG="+filepath.Join(dir, "config.json"), "MCP_HOST_SERVERS=")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("host web with a missing script did not end")
	}
	if err == nil || !strings.Contains(string(out), "nope.json: no such file or directory") || strings.Contains(string(out), "web: web:") {
		t.Errorf("host web with a missing script: %v\n%s\nwant the runtime's own error", err, out)
	}
}

// TestModelWithoutKeySaysSo: --model for OpenAI's API (no --base-url)
// without a key stops at once saying what to set, in host serve and, as
// the runtime's own error, in host web; before, every prompt failed later.
func TestModelWithoutKeySaysSo(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"serve", "--model", "claude-sonnet-4-5"},
		{"web", "--no-browser", "--model", "claude-sonnet-4-5", "--log", filepath.Join(dir, "web.log")},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, buildHost(t), args...)
		cmd.Env = append(os.Environ(), "MCP_HOST_CONFIG="+filepath.Join(dir, "config.json"), "MCP_HOST_SERVERS=", "OPENAI_API_KEY=", "MCP_HOST_BASE_URL=", "MCP_HOST_MODEL=")
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil || timedOut || !strings.Contains(string(out), "OPENAI_API_KEY") || !strings.Contains(string(out), "--base-url") {
			t.Errorf("host %s without a key: %v (timed out: %v)\n%s\nwant it to stop, naming OPENAI_API_KEY and --base-url", args[0], err, timedOut, out)
		}
	}
}
