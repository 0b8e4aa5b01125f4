package runtime

import (
	"testing"
	"time"
)

// The delay after the n-th failure in a row is MinBackoff doubled n-1
// times, capped at MaxBackoff, less up to 20% of jitter: never above the
// cap, never below 4/5 of it (the bound the crash-loop tests count on).
func TestBackoffDoublesToItsCapWithJitter(t *testing.T) {
	const minB, maxB = 50 * time.Millisecond, time.Second
	for n := 1; n <= 12; n++ {
		want := min(minB<<(n-1), maxB)
		for range 200 {
			if d := backoff(n, minB, maxB); d > want || d < want*4/5 {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", n, d, want*4/5, want)
			}
		}
	}
}
