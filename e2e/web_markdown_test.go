package e2e_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// markdownAnswer is a model's answer with Markdown and hostile HTML in it.
const markdownAnswer = "## Result\n\nThe count is **three**, see [the docs](https://example.com/docs).\n\n" +
	"| Tool | Calls |\n|---|---:|\n| echo | 3 |\n\n```go\nfmt.Println(\"hi\")\n```\n\n" +
	"<script>window.__pwned = 1</script>\n\nAn image: <img src=x onerror=\"window.__pwned = 2\"> and " +
	"[a trap](javascript:window.__pwned=3).\n"

// TestWebRendersMarkdown: host web shows a model's Markdown as host chat
// does, rendered: the heading, the bold text, the pipe table and the
// fenced block become elements in chromium; a <script>, an <img onerror>
// and a javascript: link in the answer are shown as text and never run.
func TestWebRendersMarkdown(t *testing.T) {
	t.Parallel()          // waits on processes most of its time (package doc: Parallel tests)
	testenv.Playwright(t) // a missing chromium skips (or fails) before host web starts
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{{"text": markdownAnswer}})
	w := startWeb(t, config, script)

	var r struct {
		Heading, Bold, Fence, Text    string
		TableHeads, TableCells, Links []string
		Elements, Console             []string
		Pwned                         int
	}
	runBrowserScript(t, "web-markdown.mjs", w.address, &r)
	if r.Heading != "Result" || r.Bold != "three" || !slices.Equal(r.TableHeads, []string{"Tool", "Calls"}) ||
		!slices.Equal(r.TableCells, []string{"echo", "3"}) || r.Fence != "fmt.Println(\"hi\")\n" {
		t.Errorf("the answer's Markdown is not rendered: heading %q, bold %q, table %q %q, fence %q", r.Heading, r.Bold, r.TableHeads, r.TableCells, r.Fence)
	}
	if strings.Contains(r.Text, "## Result") || strings.Contains(r.Text, "**three**") || strings.Contains(r.Text, "|---|") {
		t.Errorf("Markdown shown raw:\n%s", r.Text)
	}
	if len(r.Elements) > 0 || r.Pwned != 0 {
		t.Errorf("the answer's HTML became elements %q (window.__pwned = %d)", r.Elements, r.Pwned)
	}
	if !strings.Contains(r.Text, "<script>window.__pwned = 1</script>") || !strings.Contains(r.Text, "<img src=x") {
		t.Errorf("the answer's HTML is not shown as its text:\n%s", r.Text)
	}
	if !slices.Equal(r.Links, []string{"https://example.com/docs noopener noreferrer nofollow"}) {
		t.Errorf("links %q; want only the https one, without opener or referrer", r.Links)
	}
}
