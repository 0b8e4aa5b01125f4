package runtime

import (
	"math/rand/v2"
	"time"
)

// backoff returns the delay after the n-th failure in a row (1-based):
// min doubled n-1 times and capped at max, less up to 20% of jitter (so
// that servers that failed together do not retry together, and the delay
// never exceeds max). docs/DESIGN.md, "Servers that keep failing",
// states the policy.
func backoff(n int, min, max time.Duration) time.Duration {
	d := min
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d - time.Duration(rand.Int64N(int64(d)/5+1))
}

// stableAfter is how long a session must stay up for the failures before
// it to be forgiven: MaxBackoff. A server that dies sooner after every
// start keeps backing off, and one that dies later restarts at most once
// per MaxBackoff or so.
func (sv *server) stableAfter() time.Duration { return sv.m.opts.MaxBackoff }
