package atomicfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	for name, write := range map[string]func(string, []byte, os.FileMode) error{"WriteFile": WriteFile, "WriteCache": WriteCache} {
		t.Run(name, func(t *testing.T) { testCreatesAndReplaces(t, write) })
	}
}

func testCreatesAndReplaces(t *testing.T, write func(string, []byte, os.FileMode) error) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	if err := write(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := write(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "two" {
		t.Fatalf("content = %q, want %q", got, "two")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "config.json" {
		t.Fatalf("directory holds %q, want only config.json (no temporary file left)", names)
	}
}

func TestWriteFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "secret.json")
	// A more open existing file: the replacement still gets perm.
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600", fi.Mode().Perm())
	}
}

func TestWriteFileErrorLeavesNothingBehind(t *testing.T) {
	dir := t.TempDir()
	// The target is a non-empty directory: the rename fails after the
	// temporary file was written.
	path := filepath.Join(dir, "target")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte("data"), 0o600)
	if err == nil {
		t.Fatal("WriteFile over a non-empty directory succeeded")
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not name %s", err, path)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "target" {
		t.Fatalf("directory holds %q after a failed write, want only target", names)
	}
}

func TestWriteFileMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "file")
	if err := WriteFile(path, []byte("x"), 0o600); err == nil {
		t.Fatal("WriteFile into a missing directory succeeded")
	}
}

// Readers racing with writers see one whole version, never a part or an
// empty file.
func TestWriteFileReadersSeeWholeVersions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	version := func(i int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("%04d", i)), 4096) }
	if err := WriteFile(path, version(0), 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			got, err := os.ReadFile(path)
			if err != nil {
				if runtime.GOOS == "windows" {
					continue // a reader may hit the moment of replacement there
				}
				t.Error(err)
				return
			}
			if len(got) != 4*4096 || !bytes.Equal(got, bytes.Repeat(got[:4], 4096)) {
				t.Errorf("reader saw a partial file of %d bytes", len(got))
				return
			}
		}
	}()
	for i := 1; i <= 200; i++ {
		if err := WriteFile(path, version(i), 0o600); err != nil {
			t.Error(err)
			break
		}
	}
	close(done)
	wg.Wait()
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %q, want only f", names)
	}
}

func TestWriteJSONCreatesTheDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "dir", "state.json")
	if err := WriteJSON(path, map[string]int{"a": 1}, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("content %q", b)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
			t.Errorf("directory mode %v, want 0700", fi.Mode().Perm())
		}
	}
	if err := WriteJSON(path, func() {}, 0o600); err == nil {
		t.Error("a value JSON cannot encode was written")
	}
}
