package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// TestWebNewConversationEndsIt: host web's "New conversation" empties the
// transcript and ends the conversation on the runtime (conversation.end,
// which forgets its history and removes the results kept for it), and
// the next prompt starts another conversation instead of continuing the
// old one. Before, the page had no such action: a conversation's kept
// results stayed until host web exited.
func TestWebNewConversationEndsIt(t *testing.T) {
	t.Parallel()          // waits on processes most of its time (package doc: Parallel tests)
	testenv.Playwright(t) // a missing chromium skips (or fails) before host web starts
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{{"text": "First answer."}, {"text": "Second answer."}})
	w := startWeb(t, config, script)

	var r struct {
		MessagesBefore, MessagesAfterNew int
		Answers                          []string
	}
	runBrowserScript(t, "web-newconv.mjs", w.address, &r)
	if r.MessagesBefore != 2 || r.MessagesAfterNew != 0 {
		t.Errorf("transcript: %d messages after one exchange, %d after New conversation; want 2 and 0", r.MessagesBefore, r.MessagesAfterNew)
	}
	if len(r.Answers) != 1 || !strings.Contains(r.Answers[0], "Second answer.") {
		t.Errorf("answers shown after the new conversation: %q, want only the second", r.Answers)
	}

	// What the page sent, from the runtime's debug log (uiDebugEnv).
	log, err := os.ReadFile(filepath.Join(w.dir, "web.log"))
	if err != nil {
		t.Fatal(err)
	}
	var started []string // conversation of each run.start answer
	var startParams []map[string]any
	var ended []string
	for _, line := range bytes.Split(log, []byte("\n")) {
		from, msg, ok := loggedMessage(string(line))
		if !ok {
			continue
		}
		var m struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
			Result struct {
				RunID        string `json:"run_id"`
				Conversation string `json:"conversation"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(msg), &m) != nil {
			continue
		}
		switch {
		case from == protocol.UIToRuntime && m.Method == "run.start":
			startParams = append(startParams, m.Params)
		case from == protocol.UIToRuntime && m.Method == "conversation.end":
			c, _ := m.Params["conversation"].(string)
			ended = append(ended, c)
		case from == protocol.RuntimeToUI && m.Result.RunID != "" && m.Result.Conversation != "":
			started = append(started, m.Result.Conversation)
		}
	}
	if len(started) != 2 || len(startParams) != 2 {
		t.Fatalf("run.start: %d sent, %d answered with a conversation; want 2 and 2\n%s", len(startParams), len(started), log)
	}
	if len(ended) != 1 || ended[0] != started[0] {
		t.Errorf("conversation.end sent for %q; want exactly the first conversation %q", ended, started[0])
	}
	if c, ok := startParams[1]["conversation"]; ok {
		t.Errorf("the run after New conversation continued conversation %v", c)
	}
	if started[1] == started[0] {
		t.Errorf("the run after New conversation is in the old conversation %q", started[0])
	}
}
