package chat

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	mdparse "github.com/mcp-host/mcp-host/internal/markdown"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// A finished answer is rendered as Markdown when it moves into the
// transcript; while it streams it is shown as it comes. internal/markdown
// parses it (goldmark: CommonMark and GFM pipe tables, the parser host
// web uses too) to its syntax tree; the terminal writer below is this
// package's own. Text is cleaned for the terminal after Markdown's escapes
// and character references are resolved (mdWriter.clean), so &#27; cannot
// bring back an ESC: the only control sequences in the output are the
// styles added here.

// markdown renders Markdown answers.
type markdown struct{}

// Styles of the rendered Markdown.
var (
	mdHeading = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
	mdStrong  = lipgloss.NewStyle().Bold(true)
	mdEmph    = lipgloss.NewStyle().Italic(true)
	mdCode    = lipgloss.NewStyle().Foreground(lipgloss.Color("11"))
	mdLink    = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	mdQuote   = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
)

// maxInlineDepth bounds emphasis and links inside each other that are
// styled; deeper markup is written as its text.
const maxInlineDepth = 8

// render returns s rendered for width cells (no wrapping when width is not
// known yet).
func (markdown) render(s string, width int) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	if width <= 0 {
		width = 1 << 20
	}
	doc, src := mdparse.Parse(s)
	w := mdWriter{src: src}
	w.blocks(doc, "", "", max(width, 8))
	return strings.TrimRight(strings.Join(w.lines, "\n"), "\n")
}

// mdWriter turns a goldmark document into terminal lines.
type mdWriter struct {
	src   []byte
	lines []string
}

// nest returns the prefixes for a container inside one prefixed by first
// and rest: each gets add (addFirst on the first line). Containers nested
// so deep that their prefixes would take over half the width keep their
// parent's, so that text always has room and the prefixes cannot grow
// with the nesting a hostile answer makes.
func nest(first, rest, addFirst, addRest string, width int) (string, string) {
	if ansi.StringWidth(rest)+ansi.StringWidth(addRest) > width/2 {
		return first, rest
	}
	return first + addFirst, rest + addRest
}

// blocks writes the block children of n, a blank line between them unless
// n is an item of a tight list. first prefixes the first line written (a
// list bullet), rest every later line; width counts the prefixes.
func (w *mdWriter) blocks(n ast.Node, first, rest string, width int) {
	tight := false
	if l, ok := n.Parent().(*ast.List); ok && n.Kind() == ast.KindListItem {
		tight = l.IsTight
	}
	if n.FirstChild() == nil && n.Kind() == ast.KindListItem {
		w.lines = append(w.lines, strings.TrimRight(first, " "))
		return
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() && !tight {
			w.lines = append(w.lines, strings.TrimRight(rest, " "))
		}
		w.block(c, first, rest, width)
		first = rest
	}
}

// block writes one block node.
func (w *mdWriter) block(n ast.Node, first, rest string, width int) {
	switch n := n.(type) {
	case *ast.Heading:
		w.wrap(mdHeading.Render(w.inline(n, 0)), first, rest, width)
	case *ast.Paragraph, *ast.TextBlock:
		w.wrap(w.inline(n, 0), first, rest, width)
	case *ast.ThematicBreak:
		w.lines = append(w.lines, first+strings.Repeat("─", max(width-ansi.StringWidth(first), 1)))
	case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
		w.code(n, first, rest, width)
	case *east.Table:
		w.table(n, first, rest, width)
	case *ast.Blockquote:
		bar := mdQuote.Render("│") + " "
		first, rest = nest(first, rest, bar, bar, width)
		w.blocks(n, first, rest, width)
	case *ast.List:
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			bullet := "• "
			if n.IsOrdered() {
				bullet = strconv.Itoa(num) + ". "
				num++
			}
			if item != n.FirstChild() && !n.IsTight {
				w.lines = append(w.lines, strings.TrimRight(rest, " "))
			}
			f, r := nest(first, rest, bullet, strings.Repeat(" ", ansi.StringWidth(bullet)), width)
			w.blocks(item, f, r, width)
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
	if lines.Len() == 0 {
		w.lines = append(w.lines, strings.TrimRight(first, " "))
	}
	for i := range lines.Len() {
		seg := lines.At(i)
		line := strings.ReplaceAll(strings.TrimRight(string(seg.Value(w.src)), "\r\n"), "\t", "    ")
		line = uncut(line)
		for _, piece := range strings.Split(ansi.Hardwrap(line, max(width-ansi.StringWidth(rest)-2, 4), true), "\n") {
			w.lines = append(w.lines, strings.TrimRight(first+"  "+mdCode.Render(piece), " "))
			first = rest
		}
	}
}

// wrap writes styled inline text, word-wrapped to width with its prefixes.
func (w *mdWriter) wrap(s, first, rest string, width int) {
	limit := max(width-ansi.StringWidth(rest), 4)
	for _, line := range strings.Split(ansi.Wrap(s, limit, ""), "\n") {
		if ansi.StringWidth(line) > limit { // what Wrap could not break between words
			line = ansi.Hardwrap(line, limit, true)
		}
		for _, piece := range strings.Split(line, "\n") {
			w.lines = append(w.lines, strings.TrimRight(first+piece, " "))
			first = rest
		}
	}
}

// inline renders the inline children of n as one styled string in which a
// hard line break is a newline; depth counts the styled markup around n.
func (w *mdWriter) inline(n ast.Node, depth int) string {
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
			if depth >= maxInlineDepth {
				b.WriteString(w.inline(c, depth))
				continue
			}
			style := mdEmph
			if c.Level >= 2 {
				style = mdStrong
			}
			b.WriteString(style.Render(w.inline(c, depth+1)))
		case *ast.Link:
			label := w.inline(c, depth+1)
			if depth < maxInlineDepth {
				label = mdLink.Render(label)
			}
			b.WriteString(label)
			if dest := w.clean(c.Destination, true); dest != "" && dest != ansi.Strip(label) {
				b.WriteString(" (" + dest + ")")
			}
		case *ast.AutoLink:
			b.WriteString(mdLink.Render(w.clean(c.URL(w.src), false)))
		case *ast.Image:
			b.WriteString("[image: " + w.inline(c, depth+1) + "] " + w.clean(c.Destination, true))
		case *ast.RawHTML:
			for i := range c.Segments.Len() {
				seg := c.Segments.At(i)
				b.WriteString(w.clean(seg.Value(w.src), false))
			}
		default:
			b.WriteString(w.inline(c, depth))
		}
	}
	return strings.TrimRight(b.String(), " ")
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

// clean makes source text safe for the terminal, first resolving
// backslash escapes and character references when resolve is set, so
// that what they produce is cleaned too.
func (w *mdWriter) clean(v []byte, resolve bool) string {
	if resolve {
		v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
	}
	return uncut(string(v))
}
