package e2e_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/protocol/schema"
)

// Every message host serve sends and receives through a servedHost's Conn
// is checked against the committed schema (protocol/schema/schema.json).
// Lines a test writes straight to h.stdin (deliberately broken input) are
// not checked; the runtime's answers to them are checked against the
// response envelope.
var schemaChecked, schemaInvalid, schemaInjected atomic.Int64

// schemaCheck validates the lines of one host's two pipes and keeps the
// first mismatch.
type schemaCheck struct {
	v     *schema.Validator
	mu    sync.Mutex
	first error
	all   []error
	// ownUI, when set, names the host's own UI on the UI side (host web,
	// host chat): an old name it sends is an error too.
	ownUI string
}

func newSchemaCheck(t *testing.T) *schemaCheck {
	t.Helper()
	v, err := schema.NewValidator(schema.Committed)
	if err != nil {
		t.Fatal(err)
	}
	return &schemaCheck{v: v}
}

func (s *schemaCheck) check(from protocol.Direction, line []byte) { s.checkLine(from, line, true) }

// checkLine checks one line; whole is false for a line whose values a log
// masked (the runtime's debug log: "code":"***"), which only the old-names
// check of ownUI can judge.
func (s *schemaCheck) checkLine(from protocol.Direction, line []byte, whole bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var err error
	if whole {
		schemaChecked.Add(1)
		err = s.v.Check(from, line)
	}
	if err == nil && s.ownUI != "" && from == protocol.UIToRuntime {
		if old := s.v.Deprecated(from, line); len(old) > 0 {
			err = oldNames(s.ownUI, old, line)
		}
	}
	if err != nil {
		schemaInvalid.Add(1)
		s.mu.Lock()
		if s.first == nil {
			s.first = err
		}
		s.all = append(s.all, err)
		s.mu.Unlock()
	}
}

// take returns the mismatches so far and forgets them (for a test that
// sends a wrong message on purpose).
func (s *schemaCheck) take() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.all
	schemaInjected.Add(int64(len(all)))
	s.first, s.all = nil, nil
	return all
}

// verify fails t on the first message that did not match.
func (s *schemaCheck) verify(t *testing.T) {
	s.mu.Lock()
	first := s.first
	s.mu.Unlock()
	n, _ := s.v.Counts()
	if first != nil {
		t.Errorf("schema check (protocol/schema/schema.json): %v", first)
	}
	t.Logf("schema check: %d messages of this host serve validated against protocol/schema/schema.json", n)
}

// lineTap calls fn with every complete line that passes through it.
type lineTap struct {
	buf []byte
	fn  func([]byte)
	mu  sync.Mutex
}

func (l *lineTap) feed(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return
		}
		l.fn(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

// tapReader is r whose lines also go to tap.
type tapReader struct {
	r   io.Reader
	tap *lineTap
}

func (t tapReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.tap.feed(p[:n])
	return n, err
}

// tapWriter is w whose lines also go to tap.
type tapWriter struct {
	w   io.Writer
	tap *lineTap
}

func (t tapWriter) Write(p []byte) (int, error) {
	t.tap.feed(p)
	return t.w.Write(p)
}

// schemaSummary prints the count of every message checked in the run.
func schemaSummary() {
	if n := schemaChecked.Load(); n > 0 {
		fmt.Fprintf(os.Stdout, "schema check: %d messages validated against protocol/schema/schema.json, %d invalid (%d of them sent wrong on purpose and caught)\n",
			n, schemaInvalid.Load(), schemaInjected.Load())
	}
}
