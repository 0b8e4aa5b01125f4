package stderrtail

import (
	"strings"
	"testing"
)

func TestTailKeepsTheLastLines(t *testing.T) {
	var tl Tail
	if got := tl.Last(3); got != "" {
		t.Errorf("empty tail: %q", got)
	}
	tl.Write([]byte(strings.Repeat("noise\n", 2000)))
	tl.Write([]byte("first\n\n  \nhost serve: --script: open x: no such file\x1b[31m\n"))
	if got := tl.Last(2); !strings.HasPrefix(got, "first | host serve: --script: open x: no such file") {
		t.Errorf("Last(2) = %q", got)
	}
	if strings.Contains(tl.Last(2), "\x1b") {
		t.Errorf("an escape reached the terminal: %q", tl.Last(2))
	}
	if len(tl.buf) > keep {
		t.Errorf("kept %d bytes", len(tl.buf))
	}
}
