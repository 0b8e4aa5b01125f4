package chat

import (
	"fmt"
	"strings"
)

// /mcp <id> and /tools are drawn in a box above the status line, wrapped
// (wrapDetail), never cut at the side. A box taller than the pane would
// push its own top border off the screen, so when the rows do not fit the
// sandbox's protections, one row each, are folded first, to their
// verdicts on one row and then to a count; what still does not fit is
// clipped at the bottom, saying where to read it whole. The sandbox's
// summary (reads, writes, network), the last error and the stderr tail
// keep their rows.

// protectionKey opens a row of renderDetail that holds one protection.
const protectionKey = "protection:"

// detailBox is the box of m.detail in at most room lines (the borders
// included), and at least five; a height of 0 (not known yet) is no
// bound.
func (m *Model) detailBox(room int) string {
	width := m.width - 4
	inner := max(room-2, 3) // clipLines keeps 3
	if m.height == 0 {
		inner = 1 << 20
	}
	var wrapped string
	for _, f := range []struct {
		fold    int
		compact bool
	}{{foldNone, false}, {foldVerdicts, false}, {foldVerdicts, true}, {foldCount, true}} {
		wrapped = wrapDetail(foldProtections(m.detail, f.fold), width, f.compact)
		if strings.Count(wrapped, "\n")+1 <= inner {
			break
		}
	}
	return styleBox.Render(fit(clipLines(wrapped, inner, "host mcp get shows them all"), width))
}

// How foldProtections folds the protection rows.
const (
	foldNone     = iota // one row each, as rendered
	foldVerdicts        // one row: each protection's verdict, without its why
	foldCount           // one row: how many, and where to read them
)

// foldProtections folds the protection rows of a rendered /mcp <id> into
// one row where the first one was.
func foldProtections(s string, fold int) string {
	if fold == foldNone {
		return s
	}
	var out, rows []string
	at := -1
	for _, l := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(l, protectionKey); ok {
			if at < 0 {
				at = len(out)
				out = append(out, "")
			}
			rows = append(rows, strings.TrimSpace(v))
			continue
		}
		out = append(out, l)
	}
	if at < 0 {
		return s
	}
	v := fmt.Sprintf("%d (host mcp get shows them)", len(rows))
	if fold == foldVerdicts {
		for i, r := range rows {
			verdict, _, _ := strings.Cut(r, " (")
			rows[i] = verdict
		}
		v = strings.Join(rows, "; ")
	}
	out[at] = fmt.Sprintf("%-18s %s", "protections:", v)
	return strings.Join(out, "\n")
}

// detailKeyWidth is where the value of a /mcp <id> row starts as
// renderDetail writes it: "%-18s ".
const detailKeyWidth = 19

// detailKey returns the key of a row of renderDetail ("last error:"), if
// l is one: a word at the start, ending in ":", padded to detailKeyWidth.
func detailKey(l string) (string, bool) {
	if len(l) <= detailKeyWidth || l[0] == ' ' || l[detailKeyWidth-1] != ' ' {
		return "", false
	}
	key := strings.TrimRight(l[:detailKeyWidth], " ")
	return key, strings.HasSuffix(key, ":")
}

// wrapDetail wraps /mcp <id>'s rows to width cells: a row's value
// continues under itself (a hanging indent at the key column), other
// lines keep their own indent; a word wider than the room is broken.
// Nothing is cut: the sandbox's paths, the last error and the stderr tail
// are read whole. compact moves the values to one space after the
// longest key shown, for more room in a narrow pane.
func wrapDetail(s string, width int, compact bool) string {
	lines := strings.Split(s, "\n")
	col := detailKeyWidth
	if compact {
		keys := 0
		for _, l := range lines {
			if k, ok := detailKey(l); ok {
				keys = max(keys, len(k))
			}
		}
		for i, l := range lines {
			if k, ok := detailKey(l); ok {
				lines[i] = fmt.Sprintf("%-*s %s", keys, k, l[detailKeyWidth:])
			}
		}
		if keys > 0 {
			col = keys + 1
		}
	}
	return wrapHanging(strings.Join(lines, "\n"), width, col, func(key string) bool {
		return key[0] != ' ' && strings.HasSuffix(strings.TrimRight(key, " "), ":")
	})
}
