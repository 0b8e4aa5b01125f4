package resultstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// strayResult writes a kept-result file no store of this process kept,
// modified at mtime.
func strayResult(t *testing.T, dir, id string, mtime time.Time) string {
	t.Helper()
	p := filepath.Join(dir, filePrefix+id+fileSuffix)
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestSweepWhenTheClockJumps: files left by another host are judged by
// their modification time, so one modified far in the future (the clock
// was set back after it was written) is swept rather than kept until the
// clock gets there, while one an hour ahead is kept. The results this
// store keeps are judged by the time since it kept them: a result whose
// file looks two days old (the wall clock jumped forward since) or a year
// young (set back) is still read by its conversation.
func TestSweepWhenTheClockJumps(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	farFuture := strayResult(t, dir, "farfuture", now.Add(365*24*time.Hour))
	nearFuture := strayResult(t, dir, "nearfuture", now.Add(time.Hour))
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if exists(farFuture) {
		t.Error("a file modified a year ahead was kept: a clock set back would keep it for a year")
	}
	if !exists(nearFuture) {
		t.Error("a file modified an hour ahead was swept")
	}

	sc := s.Scope()
	jumpedForward := keepText(t, sc, "kept before the clock jumped forward\n")
	setBack := keepText(t, sc, "kept before the clock was set back\n")
	twoDaysAgo, nextYear := now.Add(-48*time.Hour), now.Add(365*24*time.Hour)
	os.Chtimes(s.path(jumpedForward), twoDaysAgo, twoDaysAgo)
	os.Chtimes(s.path(setBack), nextYear, nextYear)
	keepText(t, sc, "a later result, whose keep sweeps\n")
	for _, id := range []string{jumpedForward, setBack} {
		if got := call(t, sc, 1000, fmt.Sprintf(`{"id":%q}`, id)); !strings.Contains(got, "kept before the clock") {
			t.Errorf("a live result was swept after the clock jumped: %q", got)
		}
	}
}

// TestOwnResultsSweptByTheirAge: a result of this store is swept once
// its own clock says it was kept more than MaxAge ago, whatever its
// file's time says.
func TestOwnResultsSweptByTheirAge(t *testing.T) {
	var mu sync.Mutex
	at := time.Unix(1_700_000_000, 0)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return at
	}
	s, err := Open(Options{Dir: t.TempDir(), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sc := s.Scope()
	id := keepText(t, sc, "old\n")
	future := time.Now().Add(365 * 24 * time.Hour)
	os.Chtimes(s.path(id), future, future) // its file looks a year young
	mu.Lock()
	at = at.Add(DefaultMaxAge + time.Minute)
	mu.Unlock()
	keepText(t, sc, "new\n")
	if exists(s.path(id)) {
		t.Error("a result kept more than MaxAge ago was not swept")
	}
	if got := call(t, sc, 1000, fmt.Sprintf(`{"id":%q}`, id)); !strings.Contains(got, "gone") {
		t.Errorf("reading a swept result: %q", got)
	}
}
