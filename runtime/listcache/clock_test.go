package listcache

import (
	"os"
	"testing"
	"time"
)

// TestTTLWhenTheClockJumps: the clock set back after a catalog was kept
// (its saved time now lies in the future) makes the entry a miss, so it
// is never served longer than the server's TTL; within a minute of skew
// it is served. A clock jumped forward past the expiry is a miss (one
// tools/list more). A file without a saved time (an older host's) is
// judged by its expiry alone.
func TestTTLWhenTheClockJumps(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	now := start
	d := &Dir{Path: t.TempDir(), Now: func() time.Time { return now }}

	d.Store("k", tools("x"), 5*time.Minute)
	now = start.Add(-30 * time.Second)
	if _, ok := d.Load("k"); !ok {
		t.Error("a clock 30 s behind (skew) missed a fresh entry")
	}
	now = start.Add(-10 * time.Hour)
	if _, ok := d.Load("k"); ok {
		t.Fatal("a clock set back ten hours served an entry with a 5-minute TTL: it would for ten hours")
	}
	if _, err := os.Stat(d.file(hashKey("k"))); !os.IsNotExist(err) {
		t.Errorf("the entry from the future stays: %v", err)
	}

	now = start
	d.Store("k", tools("x"), 5*time.Minute)
	now = start.Add(2 * time.Hour)
	if _, ok := d.Load("k"); ok {
		t.Error("served after the clock jumped past its expiry")
	}

	now = start
	plant(t, d, "old", start.Add(5*time.Minute), []byte(`{"type":"object"}`))
	if _, ok := d.Load("old"); !ok {
		t.Error("an entry without a saved time was a miss while fresh")
	}
}
