//go:build !windows

package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadWarnsWritablePolicy: a policy file the user can write, or whose
// directory they can write, loads (no fail closed) with a note naming it;
// one that neither they nor their directory can change has no such note.
func TestLoadWarnsWritablePolicy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "managed.json")
	if err := os.WriteFile(file, []byte(`{"deny": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Load(file, true)
	if p.Err != nil {
		t.Fatalf("writable policy must still apply: %v", p.Err)
	}
	want := "managed policy " + file + " is writable by you; an organization's policy should not be"
	if !strings.Contains(strings.Join(p.Notes, "\n"), want) {
		t.Fatalf("notes %q lack %q", p.Notes, want)
	}

	if err := os.Chmod(file, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	warned := strings.Contains(strings.Join(Load(file, true).Notes, "\n"), "writable")
	// The kernel's answer: root may write a read-only file all the same,
	// so root is warned; anyone else is not.
	if root := os.Geteuid() == 0; warned != root {
		t.Fatalf("read-only policy in a read-only directory: warned=%v as uid %d", warned, os.Geteuid())
	}
	// A file in a read-only directory whose own bits let its owner write.
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(Load(file, true).Notes, "\n"), "writable") {
		t.Fatal("a file its owner may write was not warned")
	}
}
