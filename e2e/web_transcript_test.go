package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// shownMessage is one message of a host web tab's transcript.
type shownMessage struct {
	Kind, Text string
}

// TestWebReopenShowsTranscript opens host web's printed address a second
// time (a new tab) in the middle of a conversation: the new tab shows the
// conversation so far, in order (the user's messages, the model's answers
// as Markdown, the tool calls with their results and decisions), then the
// question still waiting; hostile text stays text there as in the first
// tab. Answered in the new tab, the run ends in both. Before, the new tab
// showed only the waiting question.
func TestWebReopenShowsTranscript(t *testing.T) {
	t.Parallel()          // waits on processes most of its time (package doc: Parallel tests)
	testenv.Playwright(t) // a missing chromium skips (or fails) before host web starts
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"local": map[string]any{"transport": "stdio", "command": buildHost(t), "args": []string{"demo-stdio-server"}},
	}}})
	count := func(text string) []map[string]any {
		return []map[string]any{{"name": adapter.PublicName("local", "word_count"), "args": map[string]any{"text": text}}}
	}
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"text": "Counting them.", "calls": count("one two three")},
		{"text": "The text has **three** words. <b>not bold</b>"},
		{"text": "Once more.", "calls": count("four five")},
		{"text": "Two words this time."},
	})
	w := startWeb(t, config, script)

	var r struct {
		First, Reopened, FirstAfter, ReopenedAfter []shownMessage
		ReopenedCalls, ReopenedElements            []string
		ReopenedStrong                             []string
		ReopenedAsks                               int
	}
	runBrowserScript(t, "web-reopen.mjs", w.address, &r)
	want := []struct{ kind, text string }{
		{"user", `count <img src=x onerror="document.title=1"> these words`},
		{"assistant", "Counting them."},
		{"user", "and once more"},
		{"assistant", "Once more."},
	}
	if len(r.Reopened) != len(want) {
		t.Fatalf("the reopened tab shows %d messages; want %d as the first tab:\n%s\nfirst tab:\n%s", len(r.Reopened), len(want), dumpShown(r.Reopened), dumpShown(r.First))
	}
	for i, m := range want {
		if r.Reopened[i].Kind != m.kind || !strings.Contains(r.Reopened[i].Text, m.text) {
			t.Errorf("reopened message %d: %s %q; want %s with %q", i, r.Reopened[i].Kind, r.Reopened[i].Text, m.kind, m.text)
		}
	}
	if a := r.Reopened[1].Text; !strings.Contains(a, "The text has three words. <b>not bold</b>") || !strings.Contains(a, "allowed (user)") || !strings.Contains(a, "local/word_count") {
		t.Errorf("the reopened tab shows the first answer as:\n%s\nwant its call (allowed), its result and its text", a)
	}
	if len(r.ReopenedCalls) != 2 || !strings.Contains(r.ReopenedCalls[1], "waiting for your permission") {
		t.Errorf("the reopened tab's call lines: %q; want two, the second waiting for permission", r.ReopenedCalls)
	}
	if r.ReopenedAsks != 1 {
		t.Errorf("the reopened tab shows %d questions; want the one waiting", r.ReopenedAsks)
	}
	if len(r.ReopenedElements) != 0 || len(r.ReopenedStrong) != 1 || r.ReopenedStrong[0] != "three" {
		t.Errorf("hostile text became markup in the reopened tab: %q (strong: %q; want only the Markdown's **three**)", r.ReopenedElements, r.ReopenedStrong)
	}
	if dumpShown(r.FirstAfter) != dumpShown(r.ReopenedAfter) || !strings.Contains(dumpShown(r.ReopenedAfter), "Two words this time.") {
		t.Errorf("after the answer in the new tab, the tabs differ:\nfirst:\n%s\nreopened:\n%s", dumpShown(r.FirstAfter), dumpShown(r.ReopenedAfter))
	}
}

// dumpShown lists a transcript, a message a line.
func dumpShown(ms []shownMessage) string {
	var b strings.Builder
	for i, m := range ms {
		fmt.Fprintf(&b, "%d %s: %q\n", i, m.Kind, m.Text)
	}
	return b.String()
}
