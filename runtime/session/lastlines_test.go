package session

import "testing"

// The stderr excerpt of a failed server keeps the line that says what was
// refused, even when a stack trace follows it.
func TestLastLinesKeepsTheRefusal(t *testing.T) {
	text := "starting\nError: EACCES: permission denied, open '/data/x.json'\n    at a\n    at b\n    at c\n    at d\n    at e"
	want := "Error: EACCES: permission denied, open '/data/x.json' | … |     at a |     at b |     at c |     at d |     at e"
	if got := lastLines(text, 5); got != want {
		t.Errorf("lastLines = %q\nwant %q", got, want)
	}
	if got := lastLines("a\nb\nc", 5); got != "a | b | c" {
		t.Errorf("short: %q", got)
	}
	if got := lastLines("x\ny\nz", 2); got != "y | z" {
		t.Errorf("no refusal: %q", got)
	}
}
