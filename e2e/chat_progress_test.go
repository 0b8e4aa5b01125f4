package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// TestChatProgressInTmux: while server-everything's long-running tool
// runs, host chat's status line shows the server's progress for it
// (issue 13, progress).
func TestChatProgressInTmux(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := buildHost(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"name": adapter.PublicName("everything", longRunning), "args": map[string]any{"duration": 6, "steps": 3}}}},
		{"text": "The long operation finished."},
	})
	c := startChat(t, "mcp-host-chat-progress-"+filepath.Base(dir), bin, dir, config, script, 140)
	c.waitFor("everything ready", func(s string) bool { return strings.Contains(s, "servers: 1 ready") })
	c.typeLine("run the long operation")
	c.waitText("Allow everything/" + longRunning + "?")
	c.keys("o")
	screen := c.waitFor("progress on the status line", func(s string) bool {
		return strings.Contains(s, "running everything/"+longRunning) && strings.Contains(s, "· 1/3 (33%)")
	})
	t.Logf("screen during the call:\n%s", screen)
	c.waitText("· 2/3 (66%)")
	c.waitText("The long operation finished.")
	if s := c.screen(); strings.Contains(s, "running everything/") {
		t.Errorf("the status line still shows the call after its result:\n%s", s)
	}
}

// TestChatTaskInTmux: while a server's task for the running call works,
// host chat's status line shows the task's state and message (issue 13,
// tasks).
func TestChatTaskInTmux(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	bin := buildHost(t)
	p := newTaskPeer(t, 20) // 20 polls of 200 ms: about 4 s of work
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"tasks": map[string]any{"transport": "http", "url": p.url},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"name": adapter.PublicName("tasks", "build"), "args": map[string]any{}}}},
		{"when_result_contains": "build ok", "text": "The build task finished."},
		{"text": "The build result did not arrive."},
	})
	c := startChat(t, "mcp-host-chat-task-"+filepath.Base(dir), bin, dir, config, script, 140)
	c.waitFor("tasks ready", func(s string) bool { return strings.Contains(s, "servers: 1 ready") })
	c.typeLine("build it")
	c.waitText("Allow tasks/build?")
	c.keys("o")
	screen := c.waitFor("the task's state on the status line", func(s string) bool {
		return strings.Contains(s, "running tasks/build") && strings.Contains(s, "· task working: compiling step")
	})
	t.Logf("screen during the task:\n%s", screen)
	c.waitText("The build task finished.")
}
