package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// TestWebConfirmNeedsAClick is a person typing in host web's message box
// when a permission prompt appears: the keys and the Enter they go on
// typing stay in the message box and answer nothing (the call keeps
// waiting, no allow button has the focus); a click on "Allow once" then
// allows the call.
func TestWebConfirmNeedsAClick(t *testing.T) {
	t.Parallel()          // waits on processes most of its time (package doc: Parallel tests)
	testenv.Playwright(t) // a missing chromium skips (or fails) before host web starts
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"local": map[string]any{"transport": "stdio", "command": buildHost(t), "args": []string{"demo-stdio-server"}},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"text": "Counting.", "calls": []map[string]any{{"name": adapter.PublicName("local", "word_count"), "args": map[string]any{"text": "one two three"}}}},
		{"text": "The text has three words."},
		{"text": "Why did the gopher cross the road?"},
	})
	w := startWeb(t, config, script)

	var r struct {
		Focused, StatusAfterEnter, PromptAfterEnter, Hint, Answer, ConfirmText string
		PendingAfterEnter, PendingAfterClick                                   int
	}
	runBrowserScript(t, "web-confirm.mjs", w.address, &r)
	if r.PendingAfterEnter != 1 || !strings.Contains(r.StatusAfterEnter, "waiting for your permission") {
		t.Errorf("after typing and Enter in the message box: %d confirms open, call status %q; want the confirm still waiting", r.PendingAfterEnter, r.StatusAfterEnter)
	}
	if strings.Contains(r.Focused, "[") || r.Focused != "textarea#prompt" {
		t.Errorf("the focus is on %q while the confirm is open; want the message box it was in", r.Focused)
	}
	if r.PromptAfterEnter != "and then tell me a joke" || !strings.Contains(r.Hint, "Allow") {
		t.Errorf("the message box holds %q and the hint says %q; want the typed text kept and a hint to answer the question with a click", r.PromptAfterEnter, r.Hint)
	}
	if !strings.Contains(r.ConfirmText, "hints: read-only") || strings.Contains(r.ConfirmText, "_hint") || strings.Contains(r.ConfirmText, "annotations: {") {
		t.Errorf("the confirm shows the tool's annotations as:\n%s\nwant words (read-only), as host chat shows them", r.ConfirmText)
	}
	if r.PendingAfterClick != 0 || !strings.Contains(r.Answer, "allowed (user)") || !strings.Contains(r.Answer, "three words") {
		t.Errorf("after the click: %d confirms open, answer %q", r.PendingAfterClick, r.Answer)
	}
}

// TestWebNoModelNamesWebFlag: a prompt in host web without a model is
// answered with host web's own flags, not a host serve command line.
func TestWebNoModelNamesWebFlag(t *testing.T) {
	chromium, node := testenv.Playwright(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{}}})
	cmd := exec.Command(buildHost(t), "web", "--no-browser", "--log", filepath.Join(dir, "web.log"))
	cmd.Env = append(os.Environ(), "MCP_HOST_CONFIG="+config, "MCP_HOST_SERVERS=", "MCP_HOST_MODEL=", "OPENAI_API_KEY=")
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	testenv.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testenv.KillGroup(cmd); _ = cmd.Wait() })
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?key=[A-Za-z0-9_-]+`)
	var address string
	for deadline := time.Now().Add(60 * time.Second); address == ""; time.Sleep(50 * time.Millisecond) {
		if address = addr.FindString(out.String()); time.Now().After(deadline) {
			t.Fatalf("host web printed no address:\n%s", out.String())
		}
	}
	result := filepath.Join(dir, "result.json")
	run := exec.Command(node, filepath.Join(testenv.RepoRoot(t), "e2e", "node", "web-nomodel.mjs"), address, result)
	run.Env = append(os.Environ(), "CHROMIUM="+chromium)
	log, runErr := run.CombinedOutput()
	var r struct{ Note, Error string }
	data, _ := os.ReadFile(result)
	if err := json.Unmarshal(data, &r); err != nil || r.Error != "" || runErr != nil {
		t.Fatalf("the browser: %v %s %v\n%s", err, r.Error, runErr, log)
	}
	if strings.Contains(r.Note, "host serve") || !strings.Contains(r.Note, "host web --model") {
		t.Errorf("without a model a prompt gets %q; want host web's flags, not host serve", r.Note)
	}
}
