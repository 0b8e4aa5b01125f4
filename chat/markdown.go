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

// table writes a pipe table in aligned columns, with the header's cells
// bold, a rule under them, and each column aligned as its delimiter says
// (---: right, :---: center). A table wider than the width gets narrower
// columns whose cells wrap inside them; one with too many columns to give
// each a few cells is written row by row, a cell per line after its
// header.
func (w *mdWriter) table(rows []string, first, rest string, width int) {
	var aligns []byte
	var cells [][]string
	for i, row := range rows {
		if i == 1 {
			for _, d := range tableCells(row) {
				aligns = append(aligns, alignOf(d))
			}
			continue
		}
		var cs []string
		for _, c := range tableCells(row) {
			cs = append(cs, inline(c))
		}
		cells = append(cells, cs)
	}
	cols := len(aligns)
	for _, cs := range cells {
		cols = max(cols, len(cs))
	}
	natural := make([]int, cols)
	for _, cs := range cells {
		for j, c := range cs {
			natural[j] = max(natural[j], ansi.StringWidth(c))
		}
	}
	room := width - ansi.StringWidth(rest) - 3*(cols-1)
	colWidth := fitColumns(natural, room)
	if colWidth == nil {
		w.tableRecords(cells, first, rest, width)
		return
	}
	sep := mdQuote.Render(" │ ")
	for i, cs := range cells {
		wrapped := make([][]string, cols)
		height := 1
		for j := range cols {
			c := ""
			if j < len(cs) {
				c = cs[j]
			}
			wrapped[j] = fitLines(c, colWidth[j])
			height = max(height, len(wrapped[j]))
		}
		for k := range height {
			var b strings.Builder
			for j := range cols {
				if j > 0 {
					b.WriteString(sep)
				}
				piece := ""
				if k < len(wrapped[j]) {
					piece = wrapped[j][k]
				}
				align := byte(0)
				if j < len(aligns) {
					align = aligns[j]
				}
				piece = pad(piece, colWidth[j], align)
				if i == 0 {
					piece = mdStrong.Render(piece)
				}
				b.WriteString(piece)
			}
			w.lines = append(w.lines, strings.TrimRight(first+b.String(), " "))
			first = rest
		}
		if i == 0 {
			rule := make([]string, cols)
			for j, cw := range colWidth {
				rule[j] = strings.Repeat("─", cw)
			}
			w.lines = append(w.lines, rest+mdQuote.Render(strings.Join(rule, "─┼─")))
		}
	}
}

// minColumn is the narrowest a wrapped table column gets.
const minColumn = 6

// fitColumns returns the width of each column of a table whose cells are
// natural wide at most, in room cells: the natural widths when they fit,
// else narrower ones (a column never narrower than minColumn, or its
// natural width when that is less; the room left shared among the
// columns that want more). It returns nil when the columns cannot have
// that much.
func fitColumns(natural []int, room int) []int {
	total, least := 0, 0
	for _, n := range natural {
		total += n
		least += min(n, minColumn)
	}
	if total <= room {
		return natural
	}
	if least > room || len(natural) == 0 {
		return nil
	}
	out := make([]int, len(natural))
	left := room
	for j, n := range natural {
		out[j] = min(n, minColumn)
		left -= out[j]
	}
	for left > 0 {
		grew := false
		for j, n := range natural {
			if left > 0 && out[j] < n {
				out[j]++
				left--
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	return out
}

// tableRecords writes each row of a table too wide for columns as a
// record: a line per cell, its header first, the value wrapped under it.
func (w *mdWriter) tableRecords(cells [][]string, first, rest string, width int) {
	if len(cells) == 0 {
		return
	}
	header := cells[0]
	for i, cs := range cells[1:] {
		if i > 0 {
			w.lines = append(w.lines, rest+mdQuote.Render(strings.Repeat("─", max(width-ansi.StringWidth(rest), 1))))
		}
		for j, c := range cs {
			name := ""
			if j < len(header) {
				name = header[j]
			}
			w.wrap(mdStrong.Render(ansi.Strip(name)+":")+" "+c, first, rest+"  ", width)
			first = rest
		}
	}
}

// alignOf reads a delimiter cell: 'l', 'r' or 'c', or 0 for none.
func alignOf(d string) byte {
	left, right := strings.HasPrefix(d, ":"), strings.HasSuffix(d, ":")
	switch {
	case left && right:
		return 'c'
	case right:
		return 'r'
	case left:
		return 'l'
	}
	return 0
}

// pad fills s to width cells as align says.
func pad(s string, width int, align byte) string {
	gap := max(width-ansi.StringWidth(s), 0)
	switch align {
	case 'r':
		return strings.Repeat(" ", gap) + s
	case 'c':
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	}
	return s + strings.Repeat(" ", gap)
}

// fitLines word-wraps styled text to limit cells, cutting only a word
// longer than a line.
func fitLines(s string, limit int) []string {
	var out []string
	for _, line := range strings.Split(ansi.Wrap(s, limit, ""), "\n") {
		if ansi.StringWidth(line) > limit { // what Wrap could not break between words
			line = ansi.Hardwrap(line, limit, true)
		}
		out = append(out, strings.Split(line, "\n")...)
	}
	return out
}

// wrap writes styled inline text, word-wrapped to width with its prefixes.
func (w *mdWriter) wrap(s, first, rest string, width int) {
	for _, piece := range fitLines(s, max(width-ansi.StringWidth(rest), 4)) {
		w.lines = append(w.lines, strings.TrimRight(first+piece, " "))
		first = rest
	}
}
