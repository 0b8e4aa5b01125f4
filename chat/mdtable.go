package chat

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	east "github.com/yuin/goldmark/extension/ast"
)

// table writes a pipe table in aligned columns, with the header's cells
// bold, a rule under them, and each column aligned as its delimiter says
// (---: right, :---: center). A table wider than the width gets narrower
// columns whose cells wrap inside them; one with too many columns to give
// each a few cells is written row by row, a cell per line after its
// header.
func (w *mdWriter) table(t *east.Table, first, rest string, width int) {
	var aligns []byte
	for _, a := range t.Alignments {
		aligns = append(aligns, map[east.Alignment]byte{east.AlignLeft: 'l', east.AlignRight: 'r', east.AlignCenter: 'c'}[a])
	}
	var cells [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cs []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cs = append(cs, strings.ReplaceAll(w.inline(c, 0), "\n", " "))
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
