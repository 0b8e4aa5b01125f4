//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// A path the grant walk found that is gone when the ruleset is built (an
// entry of a shared directory such as /tmp, deleted by its owner in
// between) is skipped, not fatal: the ruleset still builds. The walk
// grants files, a directory whole, and a directory it descends into
// (towards a secret place) by listing only; each vanishes here.
func TestVanishedWalkEntryIsSkipped(t *testing.T) {
	requireLandlock(t)
	dir := t.TempDir()
	for _, p := range []string{"keep", "gone-file", "gone-dir/x", "gone-walked/secret", "gone-walked/y", "secret"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	eff := &Effective{Read: []string{dir}, Write: []string{filepath.Join(dir, "gone-dir")},
		Deny: []string{filepath.Join(dir, "secret"), filepath.Join(dir, "gone-walked", "secret")}}
	rules, err := fsRules(eff)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"gone-file", "gone-dir", "gone-walked"} {
		if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	fd, _, err := landlock.V11.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		t.Fatalf("a path that vanished after the walk stops the ruleset: %v", err)
	}
	if fd >= 0 {
		unix.Close(fd)
	}
}
