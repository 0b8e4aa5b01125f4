package chat

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/muesli/termenv"
)

// A finished answer is rendered as Markdown: no raw markers, lists with
// bullets, code kept.
func TestAnswerRendersMarkdown(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	sized(m, 80)
	typeLine(m, "explain")
	for _, d := range []string{"# Servers\n\nThe **everything** server ", "is ready.\n\n- one item\n- two items\n\nRun `host mcp list` to see it.\n"} {
		drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: d}})
	}
	m.out = nil
	m.update(runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunCompleted}})
	out := m.printable()
	for _, raw := range []string{"**", "# Servers", "- one item", "`host"} {
		if strings.Contains(out, raw) {
			t.Errorf("raw Markdown %q in the answer:\n%s", raw, out)
		}
	}
	for _, want := range []string{"Servers", "everything", "• one item", "host mcp list"} {
		if !strings.Contains(out, want) {
			t.Errorf("the answer lacks %q:\n%s", want, out)
		}
	}
	if bad := tooWide(out, 80); len(bad) > 0 {
		t.Errorf("lines wider than the terminal:\n%s", strings.Join(bad, "\n"))
	}
}

// Markdown's character references cannot bring back what the cleaning
// removed: the rendering is cleaned again.
func TestMarkdownEntitiesStayHarmless(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	typeLine(m, "x")
	drive(m, eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta,
		Text: "Hi &#27;]0;PWNED&#7; and &#x1b;[2J and &#x202e;x" + evil + "\n\n```\n&#27;[1A code" + evil + "\n```\n"}})
	m.out = nil
	m.update(runMsg{protocol.RunStatusParams{RunID: "r1", Status: protocol.RunCompleted}})
	out := m.printable()
	if p := screenProblems(out); len(p) > 0 {
		t.Errorf("%v in the rendered answer:\n%q", p, out)
	}
	if !strings.Contains(out, "Hi") || !strings.Contains(out, "code") {
		t.Errorf("the answer is not shown:\n%q", out)
	}
}

// With colours on, the only styles in a rendered answer are the
// renderer's own: an escape written as a character reference (&#27;[31m)
// does not come back as a colour code, and what the renderer styles is
// still styled.
func TestMarkdownEntitiesBringNoStyles(t *testing.T) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.ANSI)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	var md markdown
	out := md.render("Hi &#27;[31mRED&#x1b;[5m **bold** `code` [a](https://x.test/&#27;[32m)\n\n```\n&#27;[33m\n```\n", 80)
	for _, injected := range []string{"\x1b[31m", "\x1b[5m", "\x1b[32m", "\x1b[33m"} {
		if strings.Contains(out, injected) {
			t.Errorf("the text brought the style %q:\n%q", injected, out)
		}
	}
	if !strings.Contains(out, mdStrong.Render("bold")) || !strings.Contains(out, mdCode.Render("code")) {
		t.Errorf("the renderer's own styles are missing:\n%q", out)
	}
}
