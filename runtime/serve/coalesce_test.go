package serve

import (
	"sync"
	"testing"
)

// A UI that does not read: 100,000 notifications of one key take one
// place in the queue, and the one that goes out carries the count of the
// others; another key keeps its own place and order.
func TestEnqueueLatestCoalesces(t *testing.T) {
	s := &service{nlatest: map[string]*latestNote{}}
	s.ncond = sync.NewCond(&s.nmu)
	var sent []string
	var counts []int
	for i := range 100000 {
		s.enqueueLatest("a", func(n int) { sent, counts = append(sent, "a"), append(counts, n) })
		if i == 10 {
			s.enqueueLatest("b", func(n int) { sent, counts = append(sent, "b"), append(counts, n) })
		}
	}
	if len(s.nqueue) != 2 {
		t.Fatalf("queue holds %d entries, want 2", len(s.nqueue))
	}
	for _, fn := range s.nqueue {
		fn()
	}
	if len(sent) != 2 || sent[0] != "a" || sent[1] != "b" || counts[0] != 99999 || counts[1] != 0 {
		t.Errorf("sent %v with counts %v, want [a b] with [99999 0]", sent, counts)
	}
	// Once sent, the key queues anew.
	s.nqueue = nil
	s.enqueueLatest("a", func(int) {})
	if len(s.nqueue) != 1 {
		t.Errorf("after a send, a new notification of the key is not queued")
	}
}
