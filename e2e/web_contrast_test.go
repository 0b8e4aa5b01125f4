package e2e_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// measuredText is one text of the page as web-contrast.mjs measured it.
type measuredText struct {
	Element, Text, Color, Background string
	Ratio, Need, Size                float64
}

// TestWebTextContrast measures, in chromium, every visible text of host
// web in its main states (a conversation with the user's and the model's
// messages, a message from a server's prompt, a tool call with its
// permission question, a failed run, the /mcp tab and a server's details):
// the WCAG contrast ratio of its colour against the background it is drawn
// on must be at least 4.5:1, 3:1 for large text (WCAG 2 AA). Before, the
// line naming the prompt a message came from was grey on the blue of the
// user's message.
func TestWebTextContrast(t *testing.T) {
	t.Parallel()          // waits on processes most of its time (package doc: Parallel tests)
	testenv.Playwright(t) // a missing chromium skips (or fails) before host web starts
	everything := testenv.NodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
		// A server that cannot start: /mcp shows its error.
		"broken": map[string]any{"transport": "stdio", "command": filepath.Join(dir, "no-such-server")},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, map[string]any{"runs": []any{
		map[string]any{"prompt_contains": "Please promote Eve", "steps": []any{map[string]any{"text": "Noted: **Eve** leads Sales."}}},
		map[string]any{"prompt_contains": "echo please", "steps": []any{
			map[string]any{"text": "Echoing.", "calls": []any{map[string]any{"name": adapter.PublicName("everything", "echo"), "args": map[string]any{"message": "contrast"}}}},
			map[string]any{"text": "It echoed."},
		}},
		map[string]any{"prompt_contains": "fail please", "steps": []any{map[string]any{"error": "the model failed on purpose"}}},
		map[string]any{"steps": []any{map[string]any{"text": "# Hello\n\nSome *text*, `code` and a [link](http://127.0.0.1:1/).\n\n> a quote\n\n- one\n- two"}}},
	}})
	w := startWeb(t, config, script)

	var r struct{ States map[string][]measuredText }
	runBrowserScript(t, "web-contrast.mjs", w.address, &r)
	for _, state := range []string{"start", "conversation", "prompt message", "permission question", "tool call", "error", "/mcp", "/mcp details"} {
		texts := r.States[state]
		if len(texts) == 0 {
			t.Errorf("state %q: no text measured", state)
			continue
		}
		sort.Slice(texts, func(i, j int) bool { return texts[i].Ratio < texts[j].Ratio })
		var low []string
		for _, m := range texts {
			if m.Ratio < m.Need {
				low = append(low, fmt.Sprintf("%.2f:1 (want %.1f) %s on %s, %.1fpx, %s: %q", m.Ratio, m.Need, m.Color, m.Background, m.Size, m.Element, m.Text))
			}
		}
		t.Logf("state %q: %d texts, lowest %.2f:1 (%s on %s, %s: %q)", state, len(texts), texts[0].Ratio, texts[0].Color, texts[0].Background, texts[0].Element, texts[0].Text)
		if len(low) > 0 {
			t.Errorf("state %q: text under WCAG AA contrast:\n%s", state, strings.Join(low, "\n"))
		}
	}
}
