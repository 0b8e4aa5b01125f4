package resultstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func keepText(t *testing.T, sc *Scope, text string) string {
	t.Helper()
	k, err := sc.Keep("s", "t", func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines++
	}
	if k.Bytes != int64(len(text)) || k.Lines != lines {
		t.Errorf("kept %+v for %d bytes", k, len(text))
	}
	return k.ID
}

func call(t *testing.T, sc *Scope, maxOut int, args string) string {
	t.Helper()
	res, err := sc.Tool(maxOut).Call(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].Text
}

// TestKeepReadRemove: a kept result is a 0600 file that its scope reads
// by bytes, lines and search, that another scope cannot read, and that
// closing the scope removes.
func TestKeepReadRemove(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "row %04d é\n", i)
	}
	text := b.String()
	sc := s.Scope()
	id := keepText(t, sc, text)
	info, err := os.Stat(s.path(id))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("file: %v %v", info, err)
	}
	if got := call(t, sc, 100, fmt.Sprintf(`{"id":%q,"offset":0,"length":30}`, id)); !strings.HasPrefix(got, text[:30]) || !strings.Contains(got, "next offset 30") {
		t.Errorf("bytes: %q", got)
	}
	// An offset inside "é" moves to the next whole character.
	if got := call(t, sc, 100, fmt.Sprintf(`{"id":%q,"offset":10,"length":10}`, id)); !strings.HasPrefix(got, "\nrow 0002") {
		t.Errorf("bytes inside a character: %q", got)
	}
	if got := call(t, sc, 1000, fmt.Sprintf(`{"id":%q,"lines":"500-501"}`, id)); got != "row 0500 é\nrow 0501 é\n\n[lines 500-501]" {
		t.Errorf("lines: %q", got)
	}
	if got := call(t, sc, 1000, fmt.Sprintf(`{"id":%q,"search":"ROW 077"}`, id)); !strings.HasPrefix(got, "770: row 0770 é\n771: row 0771 é\n") || strings.Count(got, "\n") != 10 {
		t.Errorf("search: %q", got)
	}
	if got := call(t, sc, 1000, fmt.Sprintf(`{"id":%q,"search":"row"}`, id)); !strings.Contains(got, "more lines match") {
		t.Errorf("search with many matches: %q", got)
	}
	if got := call(t, s.Scope(), 100, fmt.Sprintf(`{"id":%q}`, id)); !strings.Contains(got, "no kept result") {
		t.Errorf("another scope read it: %q", got)
	}
	sc.Close()
	if _, err := os.Stat(s.path(id)); !os.IsNotExist(err) {
		t.Errorf("after Close the file is still there: %v", err)
	}
	if s.total != 0 {
		t.Errorf("total %d after Close", s.total)
	}
}

// TestBoundsAndSweep: a result over its bound is not kept (no file left);
// the total bound counts the results kept; Close of the store removes
// them; files older than MaxAge are swept on Open.
func TestBoundsAndSweep(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, filePrefix+"old"+fileSuffix)
	if err := os.WriteFile(old, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-25 * time.Hour)
	os.Chtimes(old, past, past)
	other := filepath.Join(dir, "unrelated")
	os.WriteFile(other, []byte("x"), 0o600)
	os.Chtimes(other, past, past)
	s, err := Open(Options{Dir: dir, MaxResultBytes: 100, MaxTotalBytes: 150})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("an old result was not swept")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("a file that is not a kept result was swept")
	}
	sc := s.Scope()
	if _, err := sc.Keep("s", "t", func(w io.Writer) error { _, err := w.Write(make([]byte, 101)); return err }); err == nil {
		t.Error("a result over MaxResultBytes was kept")
	}
	keepText(t, sc, strings.Repeat("a", 100))
	if _, err := sc.Keep("s", "t", func(w io.Writer) error { _, err := w.Write(make([]byte, 60)); return err }); err == nil {
		t.Error("a result over MaxTotalBytes was kept")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files, want the kept result and the unrelated file", len(ents))
	}
	s.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files after Close, want 1", len(ents))
	}
}
