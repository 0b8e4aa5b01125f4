package protocol

import (
	"context"
	"sync"
	"time"
)

// noteOrderWait bounds how long a request waits for the notifications
// read before it: a notification handler that hangs must not hold every
// request.
const noteOrderWait = 5 * time.Second

// noteOrder counts the notifications a connection has handled, for the
// requests that must come after them: the peer sends in order, and a
// handler of a request (a confirm question) must not overtake the
// notifications sent before it (the streamed text and tool calls it is
// about), which the connection hands to another goroutine.
type noteOrder struct {
	mu      sync.Mutex
	done    int64
	changed chan struct{} // closed and replaced at each add
}

// add records one more handled notification.
func (n *noteOrder) add() {
	n.mu.Lock()
	n.done++
	close(n.changed)
	n.changed = make(chan struct{})
	n.mu.Unlock()
}

// wait returns once upTo notifications are handled, ctx is done or max
// has passed.
func (n *noteOrder) wait(ctx context.Context, upTo int64, max time.Duration) {
	timer := time.NewTimer(max)
	defer timer.Stop()
	for {
		n.mu.Lock()
		done, ch := n.done, n.changed
		n.mu.Unlock()
		if done >= upTo {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}
