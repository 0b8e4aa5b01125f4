package markdown

import (
	"strings"
	"testing"
)

// The shapes goldmark parses in quadratic time are rewritten before it
// sees them: container markers past MaxBlockDepth and a long line's link
// openers are escaped, fenced code is left alone, and the text is kept.
func TestBoundShapes(t *testing.T) {
	deep := strings.Repeat("- ", 20) + "x\n"
	got := Bound(deep)
	if want := strings.Repeat("- ", 16) + `\` + strings.Repeat("- ", 4) + "x\n"; got != want {
		t.Errorf("Bound(%q) = %q, want %q", deep, got, want)
	}
	quotes := strings.Repeat("> ", 20) + "q"
	if got := Bound(quotes); strings.Count(got, `\>`) != 1 {
		t.Errorf("bounded quotes = %q", got)
	}
	long := strings.Repeat("[a](", 1000)
	if got := Bound(long); strings.Contains(got, "](") {
		t.Errorf("a long line of link openers is not escaped: %.40q", got)
	}
	code := "```\n" + deep + long + "\n```\n"
	if got := Bound(code); got != code {
		t.Errorf("fenced code was rewritten: %.80q", got)
	}
	if ordinary := "- a\n  - b\n\n[l](https://x.test)\n"; Bound(ordinary) != ordinary {
		t.Error("ordinary Markdown was rewritten")
	}
}
