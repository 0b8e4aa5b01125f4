package markdown

import "strings"

// goldmark's parser is quadratic in two shapes an answer can take: a line
// that opens thousands of nested lists or quotes ("- - - …", "> > > …":
// each level scans the rest of the line), and a long line of link openers
// ("[a]([a](…": each destination is scanned to the end of the line).
// Bound rewrites those shapes, in one pass, into text that parses in
// linear time and looks the same: container markers past MaxBlockDepth on
// a line are escaped (the rest is a paragraph of that text), and on a line
// longer than maxLinkLine a "](" is escaped, so that such a line's links
// are shown as written. Lines of fenced code are left as they are.
const (
	// MaxBlockDepth is the most container markers (quotes, list items) one
	// line opens that are parsed as containers.
	MaxBlockDepth = 16
	maxLinkLine   = 2048
)

// Bound returns s with the shapes goldmark parses in quadratic time
// escaped, as above; s itself when it has none.
func Bound(s string) string {
	var b strings.Builder
	fence := ""
	changed := false
	lines := strings.SplitAfter(s, "\n")
	for i, line := range lines {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) <= 3 {
			if f := fenceMarker(t); f != "" && (fence == "" || strings.HasPrefix(t, fence)) {
				if fence == "" {
					fence = f
				} else if strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
					fence = ""
				}
			}
		}
		if fence == "" {
			if l, ok := boundLine(line); ok {
				if !changed {
					b.Grow(len(s) + 64)
					for _, prev := range lines[:i] {
						b.WriteString(prev)
					}
					changed = true
				}
				line = l
			}
		}
		if changed {
			b.WriteString(line)
		}
	}
	if !changed {
		return s
	}
	return b.String()
}

// fenceMarker returns the run of ``` or ~~~ a line starts with, if it
// opens or closes a code fence.
func fenceMarker(t string) string {
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, c) {
			n := len(t) - len(strings.TrimLeft(t, c[:1]))
			return t[:n]
		}
	}
	return ""
}

// boundLine rewrites one line outside code, if it needs it.
func boundLine(line string) (string, bool) {
	out, changed := line, false
	// Container markers at the start: "> ", "- ", "* ", "+ ", "1. ", "1) ".
	depth, i := 0, 0
	for i < len(out) {
		j := i
		for j < len(out) && (out[j] == ' ' || out[j] == '\t') {
			j++
		}
		k := j
		switch {
		case k < len(out) && out[k] == '>':
			k++
		case k+1 < len(out) && strings.IndexByte("-*+", out[k]) >= 0 && (out[k+1] == ' ' || out[k+1] == '\t'):
			k++
		default:
			for k < len(out) && k-j < 9 && out[k] >= '0' && out[k] <= '9' {
				k++
			}
			if k == j || k+1 >= len(out) || (out[k] != '.' && out[k] != ')') || (out[k+1] != ' ' && out[k+1] != '\t') {
				k = j
			} else {
				k++
			}
		}
		if k == j {
			break
		}
		depth++
		if depth > MaxBlockDepth {
			out, changed = out[:j]+`\`+out[j:], true
			break
		}
		i = k
	}
	if len(out) > maxLinkLine && strings.Contains(out, "](") {
		out, changed = strings.ReplaceAll(out, "](", `]\(`), true
	}
	return out, changed
}
