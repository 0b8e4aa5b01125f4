package chat

import (
	"strconv"
	"strings"
)

// The block structure of the Markdown answers models write: paragraphs,
// ATX and setext headings, fenced and indented code, block quotes, bullet
// and ordered lists (nested by indentation), thematic breaks and GitHub's
// pipe tables. It follows CommonMark where that matters for reading an
// answer and is simpler elsewhere (no link reference definitions, no HTML
// blocks: HTML is shown as text). Whatever it does not recognize is a
// paragraph, so no text is ever dropped.

type blockKind uint8

const (
	blockPara blockKind = iota
	blockHeading
	blockCode
	blockQuote
	blockList
	blockItem
	blockRule
	blockTable
)

// mdBlock is one block of a parsed answer.
type mdBlock struct {
	kind     blockKind
	level    int      // heading level
	text     string   // inline source of a paragraph or heading, lines joined by \n
	lines    []string // a code block's lines, a table's rows
	ordered  bool     // list: numbered
	start    int      // list: the first number
	loose    bool     // list: items separated by blank lines
	children []*mdBlock
}

// maxBlockDepth bounds quotes and lists inside each other; deeper ones
// are read as paragraphs, so that a line of a thousand "> " or "- " costs
// no more than its length.
const maxBlockDepth = 16

// parseBlocks parses the lines of a document (depth 0) or of a container's
// content.
func parseBlocks(lines []string, depth int) []*mdBlock {
	var out []*mdBlock
	for i := 0; i < len(lines); {
		line := lines[i]
		t, indent := trimIndent(line)
		switch {
		case t == "":
			i++
		case indent >= 4:
			b := &mdBlock{kind: blockCode}
			for ; i < len(lines); i++ {
				if t, in := trimIndent(lines[i]); t != "" && in < 4 {
					break
				}
				b.lines = append(b.lines, cutIndent(lines[i], 4))
			}
			for len(b.lines) > 0 && strings.TrimSpace(b.lines[len(b.lines)-1]) == "" {
				b.lines = b.lines[:len(b.lines)-1]
			}
			out = append(out, b)
		case fenceOf(t) != "":
			fence := fenceOf(t)
			b := &mdBlock{kind: blockCode}
			for i++; i < len(lines); i++ {
				if ct, in := trimIndent(lines[i]); in < 4 && strings.HasPrefix(ct, fence) && strings.Trim(ct, fence[:1]) == "" {
					i++
					break
				}
				b.lines = append(b.lines, cutIndent(lines[i], indent))
			}
			out = append(out, b)
		case headingLevel(t) > 0:
			level := headingLevel(t)
			text := strings.TrimSpace(t[level:])
			if trimmed := strings.TrimRight(text, "#"); trimmed == "" || strings.HasSuffix(trimmed, " ") {
				text = strings.TrimSpace(trimmed)
			}
			out = append(out, &mdBlock{kind: blockHeading, level: level, text: text})
			i++
		case isRule(t):
			out = append(out, &mdBlock{kind: blockRule})
			i++
		case t[0] == '>' && depth < maxBlockDepth:
			var inner []string
			for ; i < len(lines); i++ {
				qt, in := trimIndent(lines[i])
				if in >= 4 || !strings.HasPrefix(qt, ">") {
					break
				}
				inner = append(inner, strings.TrimPrefix(qt[1:], " "))
			}
			out = append(out, &mdBlock{kind: blockQuote, children: parseBlocks(inner, depth+1)})
		case isTableStart(lines, i):
			b := &mdBlock{kind: blockTable}
			for ; i < len(lines) && strings.Contains(lines[i], "|") && strings.TrimSpace(lines[i]) != ""; i++ {
				b.lines = append(b.lines, strings.TrimSpace(lines[i]))
			}
			out = append(out, b)
		default:
			if _, _, ok := listMarker(t); ok && depth < maxBlockDepth {
				var b *mdBlock
				b, i = parseList(lines, i, depth)
				out = append(out, b)
				continue
			}
			var b *mdBlock
			b, i = parseParagraph(lines, i)
			out = append(out, b)
		}
	}
	return out
}

// parseParagraph reads a paragraph from lines[i], which ends at a blank
// line or a line that starts another block; a setext underline makes it a
// heading.
func parseParagraph(lines []string, i int) (*mdBlock, int) {
	var text []string
	for ; i < len(lines); i++ {
		t, indent := trimIndent(lines[i])
		if len(text) > 0 {
			if t == "" {
				break
			}
			if indent < 4 {
				if u := strings.TrimRight(t, " "); strings.Trim(u, "=") == "" || strings.Trim(u, "-") == "" {
					level := 1
					if u[0] == '-' {
						level = 2
					}
					return &mdBlock{kind: blockHeading, level: level, text: strings.Join(text, "\n")}, i + 1
				}
				if interrupts(t) {
					break
				}
			}
		}
		text = append(text, t)
	}
	return &mdBlock{kind: blockPara, text: strings.Join(text, "\n")}, i
}

// interrupts reports whether t, a line inside a paragraph, starts another
// block instead of continuing the paragraph.
func interrupts(t string) bool {
	_, _, list := listMarker(t)
	return fenceOf(t) != "" || headingLevel(t) > 0 || isRule(t) || t[0] == '>' || list
}

// parseList reads a list that starts at lines[i]: items with the same kind
// of marker, each holding the lines indented past its marker (and lazy
// continuation lines of its last paragraph).
func parseList(lines []string, i, depth int) (*mdBlock, int) {
	t, _ := trimIndent(lines[i])
	first, _, _ := listMarker(t)
	list := &mdBlock{kind: blockList}
	if n, err := strconv.Atoi(strings.TrimRight(first, ".)")); err == nil {
		list.ordered, list.start = true, n
	}
	blankBefore := false
	for i < len(lines) {
		t, indent := trimIndent(lines[i])
		marker, width, ok := listMarker(t)
		if !ok || indent >= 4 || !sameKind(marker, first) {
			break
		}
		if blankBefore {
			list.loose = true
		}
		// Lines indented past the marker belong to the item (a little more
		// leniently than CommonMark, which wants them under its text).
		width += indent
		content := []string{strings.TrimLeft(t[len(marker):], " ")}
		lazy := content[0] != ""
		for i++; i < len(lines); i++ {
			ct, in := trimIndent(lines[i])
			switch {
			case ct == "":
				content = append(content, "")
				lazy = false
				continue
			case in >= width:
				content = append(content, cutIndent(lines[i], width))
				lazy = true
				continue
			case lazy && !interrupts(ct):
				content = append(content, ct)
				continue
			}
			break
		}
		blankBefore = false
		for len(content) > 0 && content[len(content)-1] == "" {
			content = content[:len(content)-1]
			blankBefore = true
		}
		item := &mdBlock{kind: blockItem, children: parseBlocks(content, depth+1)}
		if blankInside(content) {
			list.loose = true
		}
		list.children = append(list.children, item)
	}
	return list, i
}

// blankInside reports whether content has a blank line between two of its
// lines, which makes its list loose.
func blankInside(content []string) bool {
	for i := 1; i+1 < len(content); i++ {
		if content[i] == "" && content[i+1] != "" && !strings.HasPrefix(content[i+1], " ") {
			return true
		}
	}
	return false
}

// listMarker returns the list marker that starts t ("-", "*", "+", "1."
// or "1)") and the width of the marker with the space after it.
func listMarker(t string) (marker string, width int, ok bool) {
	if t == "" {
		return "", 0, false
	}
	n := 0
	switch {
	case t[0] == '-' || t[0] == '*' || t[0] == '+':
		n = 1
	default:
		for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(t) || t[n] != '.' && t[n] != ')' {
			return "", 0, false
		}
		n++
	}
	if n < len(t) && t[n] != ' ' {
		return "", 0, false
	}
	if isRule(t) {
		return "", 0, false
	}
	return t[:n], n + 1, true
}

// sameKind reports whether two list markers belong to the same list.
func sameKind(a, b string) bool {
	if len(a) == 1 || len(b) == 1 {
		return a == b
	}
	return a[len(a)-1] == b[len(b)-1]
}

// fenceOf returns the code fence (``` or ~~~, three or more) that starts
// t, or "".
func fenceOf(t string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 && (c == '~' || !strings.Contains(t[n:], "`")) {
			return t[:n]
		}
	}
	return ""
}

// headingLevel is the level of the ATX heading t, or 0.
func headingLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(t) && t[n] != ' ' {
		return 0
	}
	return n
}

// isRule reports whether t is a thematic break: three or more of one of
// -, * and _, spaces allowed between them.
func isRule(t string) bool {
	if t == "" || t[0] != '-' && t[0] != '*' && t[0] != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case t[0]:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// isTableStart reports whether a pipe table starts at lines[i]: a row of
// cells and, under it, a row of --- delimiters.
func isTableStart(lines []string, i int) bool {
	if i+1 >= len(lines) || !strings.Contains(lines[i], "|") {
		return false
	}
	cells := tableCells(lines[i+1])
	if len(cells) == 0 || len(cells) != len(tableCells(lines[i])) {
		return false
	}
	for _, c := range cells {
		c = strings.Trim(c, ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// tableCells splits a table row into its trimmed cells; an escaped \| is
// part of a cell.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(row[start:]))
}

// trimIndent returns line without its leading spaces, and how many there
// were (tabs count to the next multiple of four).
func trimIndent(line string) (string, int) {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return line[i:], n
		}
	}
	return "", n
}

// cutIndent removes up to n columns of indentation from line.
func cutIndent(line string, n int) string {
	col := 0
	for i := 0; i < len(line); i++ {
		if col >= n {
			return line[i:]
		}
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
			if col > n {
				return strings.Repeat(" ", col-n) + line[i+1:]
			}
		default:
			return line[i:]
		}
	}
	return ""
}
