package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The paths a server's own args and env name are granted as the user's
// intent; its own program, broad places and command lines are not
// writable through them.
func TestWordGrants(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	notes := filepath.Join(root, "notes")
	mem := filepath.Join(root, "mem")
	script := filepath.Join(root, "lib", "node_modules", "pkg", "dist", "index.js")
	bin := filepath.Join(root, "opt", "server")
	db := filepath.Join(root, "db", "data.sqlite")
	for _, d := range []string{home, notes, mem, filepath.Dir(script), filepath.Dir(bin), filepath.Dir(db)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{script, bin, db} {
		if err := os.WriteFile(f, []byte("x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ctx := Context{Home: home, Command: "/usr/bin/node",
		Args: []string{script, notes, "--db=" + db, "~", "relative/dir", "-c", "exec '" + bin + "' --flag"},
		Env:  map[string]string{"MEMORY_FILE_PATH": filepath.Join(mem, "memory.jsonl"), "TOKEN": "${SECRET}"}}
	reads, writes := wordGrants(ctx)
	for _, w := range []string{notes, mem, db, filepath.Dir(db)} {
		if !slices.Contains(writes, w) {
			t.Errorf("writes %v lack %s", writes, w)
		}
	}
	for _, r := range []string{home, bin} {
		if !slices.Contains(reads, r) || slices.Contains(writes, r) {
			t.Errorf("%s: reads %v, writes %v; want read only", r, reads, writes)
		}
	}
	for _, no := range []string{script, filepath.Dir(script), filepath.Dir(bin)} {
		if slices.Contains(writes, no) || slices.Contains(reads, no) {
			t.Errorf("%s granted: reads %v, writes %v", no, reads, writes)
		}
	}
	eff, err := Resolve(Policy{}, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(eff.Write, notes) || !slices.Contains(eff.Words, notes) {
		t.Errorf("default: %+v", eff)
	}
	if eff, _ := Resolve(Policy{Base: BaseStrict}, ctx); slices.Contains(eff.Write, notes) || slices.Contains(eff.Read, notes) {
		t.Errorf("strict grants words: %+v", eff)
	}
}
