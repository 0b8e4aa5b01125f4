package chat

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	mdtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A finished answer is rendered as Markdown when it moves into the
// transcript; while it streams it is shown as it comes. The renderer is
// goldmark's CommonMark parser and the small terminal writer below: no
// syntax highlighter and no HTML sanitizer, whose registries cost a
// glamour-based renderer 35-45 ms of start-up in every host command (see
// docs/PERFORMANCE.md). Every piece of text the parser yields is cleaned
// with termsafe after Markdown's character references are resolved
// (&#27; is an ESC), so the only control sequences in the output are the
// styles added here.

// markdown renders Markdown answers; its parser is made on first use.
type markdown struct {
	md goldmark.Markdown
}

// Styles of the rendered Markdown.
var (
	mdHeading = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
	mdStrong  = lipgloss.NewStyle().Bold(true)
	mdEmph    = lipgloss.NewStyle().Italic(true)
	mdCode    = lipgloss.NewStyle().Foreground(lipgloss.Color("11"))
	mdLink    = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	mdQuote   = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
)

// render returns s rendered for width cells.
func (m *markdown) render(s string, width int) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	if m.md == nil {
		m.md = goldmark.New()
	}
	src := []byte(s)
	doc := m.md.Parser().Parse(mdtext.NewReader(src))
	if width <= 0 {
		width = 1 << 20 // not known yet: no wrapping
	}
	w := mdWriter{src: src}
	w.blocks(doc, "", "", max(width, 8))
	return strings.TrimRight(strings.Join(w.lines, "\n"), "\n")
}

// mdWriter turns a goldmark document into terminal lines.
type mdWriter struct {
	src   []byte
	lines []string
}

// blocks writes the block children of n. first prefixes the first line
// written (a list bullet), rest every later line; width counts the
// prefix.
func (w *mdWriter) blocks(n ast.Node, first, rest string, width int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() && c.HasBlankPreviousLines() || c.PreviousSibling() != nil && needsGap(c) {
			w.lines = append(w.lines, strings.TrimRight(rest, " "))
		}
		w.block(c, first, rest, width)
		first = rest
	}
}

// needsGap reports whether a blank line goes before block c even when the
// source had none (a paragraph after a heading or a code block).
func needsGap(c ast.Node) bool {
	switch c.PreviousSibling().Kind() {
	case ast.KindHeading, ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindThematicBreak:
		return !c.HasBlankPreviousLines()
	}
	return false
}

// block writes one block node.
func (w *mdWriter) block(n ast.Node, first, rest string, width int) {
	switch n := n.(type) {
	case *ast.Heading:
		w.wrap(mdHeading.Render(w.inline(n)), first, rest, width)
	case *ast.Paragraph, *ast.TextBlock:
		w.wrap(w.inline(n), first, rest, width)
	case *ast.ThematicBreak:
		w.lines = append(w.lines, first+strings.Repeat("─", max(width-ansi.StringWidth(first), 1)))
	case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
		w.code(n, first, rest, width)
	case *ast.Blockquote:
		bar := mdQuote.Render("│") + " "
		w.blocks(n, first+bar, rest+bar, width)
	case *ast.List:
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			bullet := "• "
			if n.IsOrdered() {
				bullet = strconv.Itoa(num) + ". "
				num++
			}
			pad := strings.Repeat(" ", ansi.StringWidth(bullet))
			if item != n.FirstChild() && !n.IsTight {
				w.lines = append(w.lines, strings.TrimRight(rest, " "))
			}
			w.blocks(item, first+bullet, rest+pad, width)
			first = rest
		}
	default:
		w.blocks(n, first, rest, width)
	}
}

// code writes a code or HTML block as it is, indented two cells, each line
// cut into pieces that fit.
func (w *mdWriter) code(n ast.Node, first, rest string, width int) {
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		line := strings.ReplaceAll(strings.TrimRight(string(seg.Value(w.src)), "\r\n"), "\t", "    ")
		line = termsafe.Sanitize(line, termsafe.Options{Max: -1})
		for _, piece := range strings.Split(ansi.Hardwrap(line, max(width-ansi.StringWidth(rest)-2, 4), true), "\n") {
			w.lines = append(w.lines, first+"  "+mdCode.Render(piece))
			first = rest
		}
	}
}

// wrap writes styled inline text, word-wrapped to width with its prefixes.
func (w *mdWriter) wrap(s, first, rest string, width int) {
	limit := max(width-ansi.StringWidth(rest), 4)
	for _, line := range strings.Split(ansi.Wrap(s, limit, ""), "\n") {
		w.lines = append(w.lines, strings.TrimRight(first+line, " "))
		first = rest
	}
}

// inline renders the inline children of n as one styled string in which a
// hard line break is a newline.
func (w *mdWriter) inline(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(w.clean(c.Segment.Value(w.src), !c.IsRaw()))
			switch {
			case c.HardLineBreak():
				b.WriteByte('\n')
			case c.SoftLineBreak():
				b.WriteByte(' ')
			}
		case *ast.String:
			b.WriteString(w.clean(c.Value, !c.IsRaw()))
		case *ast.CodeSpan:
			b.WriteString(mdCode.Render(w.plain(c)))
		case *ast.Emphasis:
			style := mdEmph
			if c.Level >= 2 {
				style = mdStrong
			}
			b.WriteString(style.Render(w.inline(c)))
		case *ast.Link:
			label := w.inline(c)
			b.WriteString(mdLink.Render(label))
			if dest := w.clean(c.Destination, true); dest != "" && dest != ansi.Strip(label) {
				b.WriteString(" (" + dest + ")")
			}
		case *ast.AutoLink:
			b.WriteString(mdLink.Render(w.clean(c.URL(w.src), false)))
		case *ast.Image:
			b.WriteString("[image: " + w.inline(c) + "] " + w.clean(c.Destination, true))
		case *ast.RawHTML:
			for i := range c.Segments.Len() {
				seg := c.Segments.At(i)
				b.WriteString(w.clean(seg.Value(w.src), false))
			}
		default:
			b.WriteString(w.inline(c))
		}
	}
	return b.String()
}

// plain is the text of n's descendants without styles (a code span).
func (w *mdWriter) plain(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.WriteString(w.clean(t.Segment.Value(w.src), false))
			continue
		}
		b.WriteString(w.plain(c))
	}
	return b.String()
}

// clean makes source text safe for the terminal as one line, first
// resolving backslash escapes and character references when resolve is
// set, so that what they produce is cleaned too.
func (w *mdWriter) clean(v []byte, resolve bool) string {
	if resolve {
		v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
	}
	return termsafe.Sanitize(string(v), termsafe.Options{Max: -1})
}
