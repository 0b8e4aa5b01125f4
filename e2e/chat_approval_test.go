package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChatAsksToApproveProjectServers runs host chat in tmux in a cloned
// repository whose .mcp-host/config.json defines a stdio server that
// leaves a marker file when it starts. The chat asks at start and the
// server does not run meanwhile; "later" leaves it off (and /mcp <id>
// shows what would run); the next chat asks again, "approve" starts it;
// the chat after that does not ask.
func TestChatAsksToApproveProjectServers(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	bin := buildHost(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	// In the repository, the server's cwd: its sandbox lets it write there.
	marker := filepath.Join(repo, "project-server-ran")
	global := filepath.Join(dir, "global", "config.json")
	writeJSONFile(t, global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{}}})
	writeJSONFile(t, filepath.Join(repo, ".mcp-host", "config.json"), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"evil": map[string]any{"transport": "stdio", "command": "sh", "args": []string{"-c", `touch "$0"; exec "$1" demo-stdio-server`, marker, bin}},
	}}})

	runs := 0
	startChat := func() *tmuxChat {
		t.Helper()
		runs++
		return startChatWith(t, chatLaunch{session: "mcp-host-approval-" + filepath.Base(dir) + "-" + string(rune('0'+runs)),
			bin: bin, dir: dir, config: global, cwd: repo, width: 150, height: 45})
	}
	quit := func(c *tmuxChat) {
		t.Helper()
		c.typeLine("/quit")
		deadline := time.Now().Add(20 * time.Second)
		for exec.Command("tmux", "has-session", "-t", c.session).Run() == nil {
			if time.Now().After(deadline) {
				t.Fatalf("chat did not quit:\n%s", c.screen())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// First chat: asked at start, nothing runs; later leaves it off.
	c := startChat()
	screen := c.waitText("[a]pprove  [d]eny  [l]ater")
	for _, want := range []string{"Start server evil? A project file defines it: " + filepath.Join(repo, ".mcp-host", "config.json"), "command: sh", marker, "servers: 0 ready, 1 approval_required"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the question lacks %q:\n%s", want, screen)
		}
	}
	time.Sleep(time.Second)
	if exists(marker) {
		t.Fatal("the project server ran before approval (marker present)")
	}
	c.keys("l")
	c.waitText("evil: not started; /approve evil or /deny evil")
	c.typeLine("/mcp evil")
	screen = c.waitText("answer with:")
	if !strings.Contains(screen, "approval:          unknown") || !strings.Contains(screen, "definition:        command: sh") {
		t.Errorf("/mcp evil does not show the approval and what would run:\n%s", screen)
	}
	if exists(marker) {
		t.Fatal("the project server ran after 'later' (marker present)")
	}
	quit(c)

	// Second chat: asked again; approve starts it.
	c = startChat()
	c.waitText("[a]pprove  [d]eny  [l]ater")
	if exists(marker) {
		t.Fatal("the project server ran before approval (marker present)")
	}
	c.keys("a")
	c.waitText("evil: approved; starting it")
	c.waitText("servers: 1 ready")
	if !exists(marker) {
		t.Error("evil is ready but its marker is absent")
	}
	quit(c)

	// Third chat: the answer holds; nothing is asked. evil is a stdio
	// server with a catalog kept from the second chat, so it waits idle
	// (lazy start) until something uses it: /mcp evil starts it.
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	c = startChat()
	screen = c.waitText("servers: 0 ready, 1 idle")
	if strings.Contains(screen, "[a]pprove") || strings.Contains(screen, "Start server evil?") {
		t.Errorf("asked again about an approved server:\n%s", screen)
	}
	if exists(marker) {
		t.Error("the idle server ran before anything used it (marker present)")
	}
	c.typeLine("/mcp evil")
	c.waitText("servers: 1 ready")
	if !exists(marker) {
		t.Error("the approved server did not start in the next chat when /mcp asked for it")
	}
	quit(c)
}
