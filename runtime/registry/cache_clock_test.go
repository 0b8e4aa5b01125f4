package registry

import (
	"testing"
	"time"
)

// TestCachedAnswerFromTheFuture: an answer fetched, by its file, a day
// from now (the clock was set back since) is not fresh: it would be
// served as fresh for a day. It is still there when a stale answer is
// welcome (the registry unreachable).
func TestCachedAnswerFromTheFuture(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	if err := c.Put("k", &Result{FetchedAt: time.Now().Add(24 * time.Hour), Entries: []Entry{{Server: Server{Name: "io.github.t/a"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get("k", false); ok {
		t.Error("an answer fetched a day in the future was fresh")
	}
	if _, ok := c.Get("k", true); !ok {
		t.Error("the answer is gone for a stale read")
	}
}
