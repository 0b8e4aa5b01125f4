package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestChatNarrowTable: at 60 columns an answer's table stays a table in
// host chat: a rule under the header, and a long cell wrapped inside its
// column, the other columns' separators on each of its lines.
func TestChatNarrowTable(t *testing.T) {
	requireTmux(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{{"text": "Here:\n\n| Tool | Server | What it does |\n|---|---|---:|\n" +
		"| echo | everything | Echoes back the message it is given, word for word, so that a test can see it arrived |\n" +
		"| add | math | Adds two numbers |\n\nDone."}})
	c := startChat(t, "mcp-host-narrow-table-"+filepath.Base(filepath.Dir(dir)), buildHost(t), dir, config, script, 60)
	c.waitText("Type a prompt")
	c.typeLine("a table please")
	screen := c.waitText("Done.")
	var table []string
	in := false
	for _, l := range strings.Split(screen, "\n") {
		switch {
		case strings.Contains(l, "Tool") && strings.Contains(l, "Server"):
			in = true
		case strings.HasPrefix(strings.TrimSpace(l), "Done."):
			in = false
		}
		if in && strings.TrimSpace(l) != "" {
			table = append(table, l)
		}
	}
	if len(table) < 5 || !strings.Contains(table[1], "─┼─") {
		t.Fatalf("no table with a rule under its header at 60 columns:\n%s", screen)
	}
	for _, l := range table[2:] {
		if strings.Count(l, "│") != 2 || len([]rune(l)) > 60 {
			t.Errorf("a table line out of its columns: %q\n%s", l, strings.Join(table, "\n"))
		}
	}
	if !strings.Contains(screen, "arrived") || !strings.Contains(screen, "Adds two numbers") {
		t.Errorf("a cell was lost:\n%s", screen)
	}
}

// TestChatToolsNarrow: /tools at 60 columns leads with the tool as a
// person names it and what it does, and ends with the count.
func TestChatToolsNarrow(t *testing.T) {
	requireTmux(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"local": map[string]any{"transport": "stdio", "command": buildHost(t), "args": []string{"demo-stdio-server"}},
	}}})
	c := startChat(t, "mcp-host-tools-narrow-"+filepath.Base(filepath.Dir(dir)), buildHost(t), dir, config, filepath.Join(dir, "none.json"), 60)
	writeJSONFile(t, filepath.Join(dir, "none.json"), []map[string]any{{"text": "unused"}})
	c.waitText("servers: 1 ready")
	c.typeLine("/tools")
	screen := c.waitText("2 tools")
	var row string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "word_count") {
			row = strings.TrimLeft(l, "│ ") // the box around it
		}
	}
	if !strings.HasPrefix(row, "local/word_count") || !strings.Contains(row, "Counts the words") {
		t.Errorf("/tools at 60 columns shows word_count as %q; want local/word_count and its description first:\n%s", row, screen)
	}
}
