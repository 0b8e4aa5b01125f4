package chat

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The screen must fit the terminal from 60 to 250 columns: a line wider
// than the terminal wraps, and the next redraw then leaves a stale line
// behind. The footer is fitted (each line cut to the width, with …), the
// transcript and the streamed answer are wrapped at word boundaries, and
// the tables choose their columns for the width.

// minWidth is the narrowest layout the chat draws for.
const minWidth = 20

// fit cuts every line of s (which may hold styles) to width cells.
func fit(s string, width int) string {
	width = max(width, minWidth)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// wrapWords wraps every line of s at spaces to width cells. A word wider
// than width (a URL, say) is left whole on its own line, for the terminal
// to fold: cutting it would break copying it.
func wrapWords(s string, width int) string {
	width = max(width, minWidth)
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		var cur string
		curW := 0
		for _, w := range strings.Split(strings.TrimLeft(l, " "), " ") {
			ww := ansi.StringWidth(w)
			switch {
			case curW == 0:
				cur, curW = indent+w, len(indent)+ww
			case curW+1+ww <= width:
				cur, curW = cur+" "+w, curW+1+ww
			default:
				out = append(out, strings.TrimRight(cur, " "))
				cur, curW = indent+w, len(indent)+ww
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// wrapBreak wraps every line of s at spaces to width cells, like
// wrapWords, and breaks a word wider than width (a path, a run of JSON)
// at the width: for a tool call or result, which is cut anyway and
// whose long words the terminal would otherwise fold wherever its edge
// falls. A plain word is broken into pieces that fill the line, its last
// piece followed by the next words; a word that holds styles is broken
// where it crosses the width, its styles kept.
func wrapBreak(s string, width int) string {
	width = max(width, minWidth)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = splitLongWords(l, width)
	}
	lines = strings.Split(wrapWords(strings.Join(lines, "\n"), width), "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Hardwrap(l, width, true)
		}
	}
	return strings.Join(lines, "\n")
}

// splitLongWords puts spaces into the plain words of l that are wider
// than the room its indent leaves in width cells, so that wrapWords
// lays their pieces out one full line each: every piece but the last
// fills a line, so no space shows.
func splitLongWords(l string, width int) string {
	if ansi.StringWidth(l) <= width || strings.Contains(l, "\x1b") {
		return l
	}
	body := strings.TrimLeft(l, " ")
	indent := l[:len(l)-len(body)]
	room := width - len(indent)
	if room < 1 {
		return l
	}
	words := strings.Split(body, " ")
	for i, w := range words {
		if ansi.StringWidth(w) <= room {
			continue
		}
		var pieces []string
		var cur strings.Builder
		curW := 0
		for _, r := range w {
			rw := ansi.StringWidth(string(r))
			if curW+rw > room && curW > 0 {
				pieces = append(pieces, cur.String())
				cur.Reset()
				curW = 0
			}
			cur.WriteRune(r)
			curW += rw
		}
		words[i] = strings.Join(append(pieces, cur.String()), " ")
	}
	return indent + strings.Join(words, " ")
}

// styleLines renders every line of s in style: a style given several
// lines at once pads them all to the widest.
func styleLines(style lipgloss.Style, s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return strings.Join(lines, "\n")
}

// wrapHard wraps s at spaces to width cells and cuts words wider than
// that: for text inside a box, whose border must stay in place.
func wrapHard(s string, width int) string {
	return fit(wrapWords(s, width), width)
}

// column is a column of a table: its heading and cells, the order in
// which it is dropped when the table is too wide (0: never; higher goes
// first) and the width it may shrink to (0: it does not shrink).
type column struct {
	head  string
	cells []string
	drop  int
	min   int
}

// renderTable lays cols out in at most width cells: columns are dropped,
// then shrunk (cells cut with …), until the table fits.
func renderTable(cols []column, width int) string {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = ansi.StringWidth(c.head)
		for _, s := range c.cells {
			widths[i] = max(widths[i], ansi.StringWidth(s))
		}
	}
	total := func() int {
		t := 0
		n := 0
		for i := range cols {
			if widths[i] > 0 {
				t += widths[i]
				n++
			}
		}
		return t + 2*max(n-1, 0)
	}
	for total() > width {
		best := -1
		for i, c := range cols {
			if widths[i] > 0 && c.drop > 0 && (best < 0 || c.drop > cols[best].drop) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		widths[best] = 0
	}
	// Shrink from the last column that may shrink back to the first.
	for i := len(cols) - 1; i >= 0 && total() > width; i-- {
		if cols[i].min > 0 && widths[i] > cols[i].min {
			widths[i] = max(cols[i].min, widths[i]-(total()-width))
		}
	}
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c.cells))
	}
	var b strings.Builder
	for r := -1; r < rows; r++ {
		var cells []string
		for i, c := range cols {
			if widths[i] == 0 {
				continue
			}
			s := c.head
			if r >= 0 {
				s = ""
				if r < len(c.cells) {
					s = c.cells[r]
				}
			}
			s = ansi.Truncate(s, widths[i], "…")
			cells = append(cells, s+strings.Repeat(" ", widths[i]-ansi.StringWidth(s)))
		}
		b.WriteString(strings.TrimRight(strings.Join(cells, "  "), " "))
		if r < rows-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// eraseAfterLong ends every line wider than the terminal (a URL the
// terminal folds) with an erase to the end of the row. The program
// erases the rest of the row only after the lines that fit, so the
// folded line's last row kept the tail of the footer drawn there before,
// which tmux then joined to the URL. A line that ends exactly at the
// right edge needs none (and an erase there would take its last cell).
func eraseAfterLong(s string, termWidth int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > termWidth && w%termWidth != 0 {
			lines[i] = l + ansi.EraseLineRight
		}
	}
	return strings.Join(lines, "\n")
}

// helpColumn is where /help's descriptions start.
const helpColumn = 20

// wrapHelp wraps /help's lines to width cells, each description under
// itself (a hanging indent at its column).
func wrapHelp(s string, width int) string {
	return wrapHanging(s, width, helpColumn, func(key string) bool { return strings.HasPrefix(key, "  ") })
}

// wrapHanging wraps s to width cells; a line whose first col cells are a
// key (isKey) followed by a space continues its value under itself.
func wrapHanging(s string, width, col int, isKey func(string) bool) string {
	width = max(width, minWidth)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if len(l) > col && l[col-1] == ' ' && isKey(l[:col]) && width > col+minWidth {
			key, val := l[:col], l[col:]
			pad := strings.Repeat(" ", col)
			for i, v := range strings.Split(wrapBreak(val, width-col), "\n") {
				if i == 0 {
					out = append(out, key+v)
				} else {
					out = append(out, pad+v)
				}
			}
			continue
		}
		out = append(out, strings.Split(wrapBreak(l, width), "\n")...)
	}
	return strings.Join(out, "\n")
}

// clipLines keeps at most n lines of s (at least 3), the last one saying
// how many were left out and where to read them whole: a box taller than
// the pane would push its own top border off the screen.
func clipLines(s string, n int, more string) string {
	lines := strings.Split(s, "\n")
	n = max(n, 3)
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n-1], "\n") + "\n" + fmt.Sprintf("… %d more lines (%s)", len(lines)-n+1, more)
}
