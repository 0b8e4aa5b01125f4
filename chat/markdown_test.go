package chat

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
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

// The blocks models write come out as a reader expects: a table in
// aligned columns, nested and numbered lists, code as it is, quotes, a
// setext heading, escapes; and no word of the text is lost.
func TestMarkdownBlocks(t *testing.T) {
	var md markdown
	src := "Title\n=====\n\n| Tool | Server |\n|---|---|\n| echo | everything |\n| add | math |\n\n" +
		"- one\n  - nested\n- two\n\n3. third\n4. fourth\n\n> quoted\n\n```\n  indented code\n```\n\n\\*literal\\* snake_case_word a_b*c"
	out := ansi.Strip(md.render(src, 60))
	for _, want := range []string{"Title\n", "Tool │ Server", "echo │ everything", "add  │ math", "• one\n  • nested\n• two",
		"3. third\n4. fourth", "│ quoted", "    indented code", "*literal* snake_case_word a_b*c"} {
		if !strings.Contains(out, want) {
			t.Errorf("the rendering lacks %q:\n%s", want, out)
		}
	}
	for _, raw := range []string{"=====", "|---", "```", "\\*"} {
		if strings.Contains(out, raw) {
			t.Errorf("raw Markdown %q in:\n%s", raw, out)
		}
	}
}

// A table wider than the terminal is shown row by row, wrapped, not cut.
func TestMarkdownWideTable(t *testing.T) {
	var md markdown
	out := ansi.Strip(md.render("| a | b |\n|---|---|\n| "+strings.Repeat("x", 50)+" | tailcell |\n", 30))
	if bad := tooWide(out, 30); len(bad) > 0 {
		t.Errorf("lines wider than 30:\n%s", strings.Join(bad, "\n"))
	}
	if !strings.Contains(out, "tailcell") {
		t.Errorf("a cell was lost:\n%s", out)
	}
}

// FuzzMarkdown: whatever a model writes, the rendering fits the terminal
// and carries no control sequence but the renderer's own styles.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# h\n\npara *em* **strong** `code` [l](u)", "- a\n  - b\n\n1. c", "| a | b |\n|---|---|\n| 1 | 2 |",
		"```\ncode\n```", "> q\n> > qq", "&#27;[31m &#x9b;2J", "***x*** _y_ __z__", "a  \nb\\\nc", strings.Repeat("[", 50) + "x" + strings.Repeat("](", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		old := lipgloss.ColorProfile()
		lipgloss.SetColorProfile(termenv.ANSI)
		defer lipgloss.SetColorProfile(old)
		var md markdown
		out := md.render(s, 40)
		if strings.TrimSpace(s) == "" {
			return
		}
		if bad := tooWide(out, 40); len(bad) > 0 {
			t.Fatalf("lines wider than 40 for %q:\n%q", s, bad)
		}
		if p := screenProblems(out); len(p) > 0 {
			t.Fatalf("%v in the rendering of %q:\n%q", p, s, out)
		}
	})
}

// BenchmarkMarkdownHostile renders answers of about 60 KB written to make
// a Markdown parser quadratic (openers without closers, brackets without
// matches, nesting a thousand deep), next to an ordinary answer of the same
// size: each should cost about what the ordinary one does.
func BenchmarkMarkdownHostile(b *testing.B) {
	ordinary := strings.Repeat("Some **bold** text, a `code span` and a [link](https://example.com).\n\n- item one\n- item two\n\n", 600)
	for _, bc := range []struct{ name, src string }{
		{"ordinary", ordinary},
		{"stars", strings.Repeat("*a ", 20000)},
		{"underscores", strings.Repeat("_a ", 20000)},
		{"backticks", strings.Repeat("`a ", 20000)},
		{"brackets", strings.Repeat("[", 60000)},
		{"links", strings.Repeat("[a](", 15000)},
		{"nested-strong", strings.Repeat("**x ", 15000)},
		{"nested-lists", strings.Repeat("- ", 30000) + "x"},
		{"nested-quotes", strings.Repeat("> ", 30000) + "x"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var md markdown
			b.SetBytes(int64(len(bc.src)))
			for b.Loop() {
				md.render(bc.src, 80)
			}
		})
	}
}

// A table narrower than its text stays a table: its columns narrow, each
// cell wraps inside its own column (the separators on every line), the
// rule stays under the header, every header cell is bold, and a column is
// aligned as its delimiter row says.
func TestMarkdownNarrowTable(t *testing.T) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.ANSI)
	defer lipgloss.SetColorProfile(old)
	var md markdown
	src := "| Tool | Server | What it does |\n|---|:---:|---:|\n" +
		"| echo | everything | Echoes back the message it is given, word for word, for tests |\n" +
		"| add | math | Adds two numbers |\n"
	styled := md.render(src, 40)
	out := ansi.Strip(styled)
	if bad := tooWide(out, 40); len(bad) > 0 {
		t.Errorf("lines wider than 40:\n%s", strings.Join(bad, "\n"))
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 5 || !strings.Contains(lines[1], "─┼─") {
		t.Fatalf("no rule under the header:\n%s", out)
	}
	for _, l := range lines[2:] {
		if strings.Count(l, "│") != 2 {
			t.Errorf("a table line without its columns (a wrapped cell restarting at column 0?): %q\n%s", l, out)
		}
	}
	for _, word := range []string{"Echoes", "tests", "numbers", "everything"} {
		if !strings.Contains(out, word) {
			t.Errorf("%q was lost:\n%s", word, out)
		}
	}
	for _, h := range []string{"Tool", "Server", "What it does"} {
		if !regexp.MustCompile(`\x1b\[1m[^\x1b]*` + regexp.QuoteMeta(h)).MatchString(styled) {
			t.Errorf("the header cell %q is not bold:\n%q", h, styled)
		}
	}
	// "Adds two numbers" is right-aligned in its column, "math" centered.
	var last string
	for _, l := range lines {
		if strings.Contains(l, "Adds two") {
			last = l
		}
	}
	cellText := strings.TrimRight(last[strings.LastIndex(last, "│")+len("│"):], " ")
	if !strings.HasPrefix(cellText, "  ") {
		t.Errorf("the right-aligned cell reads %q in:\n%s", cellText, out)
	}
	if mid := strings.Split(last, "│")[1]; !strings.HasPrefix(mid, "   ") {
		t.Errorf("the centered cell reads %q in:\n%s", mid, out)
	}
}

// An answer of 30000 nested lists (a shape goldmark parses in quadratic
// time, bounded by internal/markdown) renders, and fits the width.
func TestMarkdownBoundedShapes(t *testing.T) {
	var md markdown
	out := ansi.Strip(md.render(strings.Repeat("- ", 30000)+"deepest", 40))
	if !strings.Contains(out, "deepest") || len(tooWide(out, 40)) > 0 {
		t.Errorf("30000 nested lists:\n%.400s", out)
	}
}
