package chat

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// A finished answer is rendered as Markdown when it moves into the
// transcript; while it streams it is shown as it comes. The parser is this
// package's own (mdblock.go, mdinline.go) and so is the terminal writer
// below: a Markdown library's tables (glamour's lexers and sanitizer,
// goldmark's entity table and regular expressions) were built in every
// host command's package initialization, a third of a one-shot command's
// start (docs/PERFORMANCE.md). Text is cleaned for the terminal after
// Markdown's escapes and character references are resolved (inline), so
// the only control sequences in the output are the styles added here.

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

// render returns s rendered for width cells (no wrapping when width is not
// known yet).
func (markdown) render(s string, width int) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	if width <= 0 {
		width = 1 << 20
	}
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"), "\n")
	var w mdWriter
	w.blocks(parseBlocks(lines, 0), "", "", max(width, 8), false)
	return strings.TrimRight(strings.Join(w.lines, "\n"), "\n")
}

// mdWriter turns parsed blocks into terminal lines.
type mdWriter struct {
	lines []string
}

// blocks writes blocks one after another, a blank line between them
// unless tight (the items of a tight list). first prefixes the first line
// written (a list bullet), rest every later line; width counts the
// prefixes.
func (w *mdWriter) blocks(bs []*mdBlock, first, rest string, width int, tight bool) {
	for i, b := range bs {
		if i > 0 && !tight {
			w.lines = append(w.lines, strings.TrimRight(rest, " "))
		}
		w.block(b, first, rest, width)
		first = rest
	}
}

// block writes one block.
func (w *mdWriter) block(b *mdBlock, first, rest string, width int) {
	switch b.kind {
	case blockHeading:
		w.wrap(mdHeading.Render(inline(b.text)), first, rest, width)
	case blockPara:
		w.wrap(inline(b.text), first, rest, width)
	case blockRule:
		w.lines = append(w.lines, first+strings.Repeat("─", max(width-ansi.StringWidth(first), 1)))
	case blockCode:
		w.code(b.lines, first, rest, width)
	case blockTable:
		w.table(b.lines, first, rest, width)
	case blockQuote:
		bar := mdQuote.Render("│") + " "
		w.blocks(b.children, first+bar, rest+bar, width, false)
	case blockList:
		for i, item := range b.children {
			bullet := "• "
			if b.ordered {
				bullet = strconv.Itoa(b.start+i) + ". "
			}
			if i > 0 && b.loose {
				w.lines = append(w.lines, strings.TrimRight(rest, " "))
			}
			pad := strings.Repeat(" ", ansi.StringWidth(bullet))
			if len(item.children) == 0 {
				w.lines = append(w.lines, strings.TrimRight(first+bullet, " "))
			}
			w.blocks(item.children, first+bullet, rest+pad, width, !b.loose)
			first = rest
		}
	}
}

// code writes a code block as it is, indented two cells, each line cut
// into pieces that fit.
func (w *mdWriter) code(lines []string, first, rest string, width int) {
	if len(lines) == 0 {
		lines = []string{""}
	}
	for _, line := range lines {
		line = uncut(strings.ReplaceAll(line, "\t", "    "))
		for _, piece := range strings.Split(ansi.Hardwrap(line, max(width-ansi.StringWidth(rest)-2, 4), true), "\n") {
			w.lines = append(w.lines, strings.TrimRight(first+"  "+mdCode.Render(piece), " "))
			first = rest
		}
	}
}

// table writes a pipe table in aligned columns when it fits the width,
// and otherwise each row as one wrapped line of cells.
func (w *mdWriter) table(rows []string, first, rest string, width int) {
	var cells [][]string
	for i, row := range rows {
		if i == 1 {
			continue // the delimiter row
		}
		var cs []string
		for _, c := range tableCells(row) {
			cs = append(cs, inline(c))
		}
		cells = append(cells, cs)
	}
	cols := 0
	for _, cs := range cells {
		cols = max(cols, len(cs))
	}
	colWidth := make([]int, cols)
	for _, cs := range cells {
		for j, c := range cs {
			colWidth[j] = max(colWidth[j], ansi.StringWidth(c))
		}
	}
	total := ansi.StringWidth(rest) + 3*(cols-1)
	for _, cw := range colWidth {
		total += cw
	}
	sep := mdQuote.Render(" │ ")
	for i, cs := range cells {
		if total > width {
			w.wrap(strings.Join(cs, sep), first, rest, width)
			first = rest
			continue
		}
		var b strings.Builder
		for j := range cols {
			c := ""
			if j < len(cs) {
				c = cs[j]
			}
			if j > 0 {
				b.WriteString(sep)
			}
			b.WriteString(c + strings.Repeat(" ", colWidth[j]-ansi.StringWidth(c)))
		}
		line := b.String()
		if i == 0 {
			line = mdStrong.Render(line)
		}
		w.lines = append(w.lines, strings.TrimRight(first+line, " "))
		first = rest
		if i == 0 {
			w.lines = append(w.lines, rest+mdQuote.Render(strings.Repeat("─", total-ansi.StringWidth(rest))))
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
