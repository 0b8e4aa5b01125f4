package session

import (
	"slices"
	"strings"
)

// lastLines returns at most n trailing lines of text, joined by " | ".
// When a refusal (EACCES, EPERM, "permission denied", "not permitted")
// lies above them, the last such line leads, followed by "…": a program
// that prints a stack after its error (node does) would push out the
// very line that says what the sandbox refused.
func lastLines(text string, n int) string {
	lines := strings.Split(text, "\n")
	if len(lines) <= n {
		return strings.Join(lines, " | ")
	}
	tail := lines[len(lines)-n:]
	if !slices.ContainsFunc(tail, refusal) {
		for i := len(lines) - n - 1; i >= 0; i-- {
			if refusal(lines[i]) {
				return lines[i] + " | … | " + strings.Join(tail, " | ")
			}
		}
	}
	return strings.Join(tail, " | ")
}

// refusal reports a line that says an operation was refused.
func refusal(line string) bool {
	l := strings.ToLower(line)
	return strings.Contains(line, "EACCES") || strings.Contains(line, "EPERM") ||
		strings.Contains(l, "permission denied") || strings.Contains(l, "not permitted")
}
