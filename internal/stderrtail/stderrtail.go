// Package stderrtail keeps the last lines a child process wrote to its
// stderr, to say why it failed: host chat and host web start `host serve`,
// whose own error (a --script file that is missing, say) is only there.
package stderrtail

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/termsafe"
)

// keep bounds what a Tail holds.
const keep = 4096

// Tail is an io.Writer that keeps the last 4 KB written to it. The zero
// value is ready; it is safe for concurrent use.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

// Write keeps the end of p; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > keep {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-keep:]...)
	}
	return len(p), nil
}

// Last returns the last n lines that are not blank, each made one line
// safe for a terminal, joined with " | "; "" when nothing was written.
func (t *Tail) Last(n int) string {
	t.mu.Lock()
	text := string(t.buf)
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = termsafe.Line(l); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// StartError is the error of a UI whose runtime failed its start (err):
// when the runtime has exited (exited closed, waited for up to a second),
// what it said last on stderr, t; else err. Both name the log file.
func StartError(err error, exited <-chan struct{}, t *Tail, logFile string) error {
	select {
	case <-exited:
		if why := t.Last(3); why != "" {
			return fmt.Errorf("the runtime did not start: %s (log: %s)", why, logFile)
		}
	case <-time.After(time.Second):
	}
	return fmt.Errorf("the runtime did not start (see %s): %w", logFile, err)
}
