package serve

import (
	"context"
	"errors"
	"sync"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/permission"
)

// runKey is the context key of a run's *runState.
type runKey struct{}

// runState puts a run's permission events and its confirm requests in
// causal order: the core reports a call's permission check (phase asked)
// before it asks the gate, but through its own goroutine, while the gate's
// confirm goes straight to the UI. So the asked event is held until the
// confirm for that call is about to be sent (it goes out first); when the
// decision comes without one (rules, trust, a remembered answer), nobody
// was asked and it is dropped.
type runState struct {
	id string
	mu sync.Mutex
	// calls are the run's permission checks by call id.
	calls map[string]*checkedCall
}

// checkedCall is one call's permission check.
type checkedCall struct {
	// seen is closed when the core's asked event has arrived (in asked).
	seen  chan struct{}
	asked *protocol.AgentEventParams
	// sent: the asked event is on its way to the UI.
	sent bool
	// by says what decided the call (permission.By*).
	by string
}

func newRunState(id string) *runState {
	return &runState{id: id, calls: map[string]*checkedCall{}}
}

// call returns the check of call id, creating it. r.mu must be held.
func (r *runState) call(id string) *checkedCall {
	c, ok := r.calls[id]
	if !ok {
		c = &checkedCall{seen: make(chan struct{})}
		r.calls[id] = c
	}
	return c
}

// asked holds the core's asked event of a call.
func (r *runState) heldAsked(p *protocol.AgentEventParams) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.call(p.Call.ID)
	if c.asked == nil {
		c.asked = p
		close(c.seen)
	}
}

// verdict records what decided a call.
func (r *runState) verdict(callID string, v permission.Verdict) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.call(callID).by = v.By
}

// decided returns what decided the call. An asked event not sent by
// then is dropped: nobody was asked.
func (r *runState) decided(callID string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.call(callID)
	c.sent = true
	return c.by
}

// beforeConfirm sends the asked event of callID to the UI ahead of the
// confirm about it: it waits until the core has reported the check and
// the event has been written. It returns the call's step.
// An asked event is sent only this way: when the user is asked.
func (s *service) beforeConfirm(ctx context.Context, r *runState, callID string) (int, error) {
	r.mu.Lock()
	c := r.call(callID)
	r.mu.Unlock()
	select {
	case <-c.seen:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	r.mu.Lock()
	ev := c.asked
	send := !c.sent
	c.sent = true
	r.mu.Unlock()
	if !send {
		return ev.Step, nil
	}
	written := make(chan struct{})
	s.enqueue(func() {
		s.ui.AgentEvent(context.Background(), ev)
		close(written)
	})
	select {
	case <-written:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return ev.Step, nil
}

// confirmContext returns the context a confirm is sent with: it ends with
// ctx (the gate's), and its cause says why for ui.request.cancelled: the
// [protocol.CancelReason] the run or request was cancelled with
// (run.cancel, shutdown), or else timeout: the gate stopped waiting
// (its own cancel carries no reason).
func confirmContext(ctx context.Context) (context.Context, func()) {
	cctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		var r protocol.CancelReason
		if errors.As(context.Cause(ctx), &r) {
			cancel(r)
			return
		}
		cancel(protocol.ReasonTimeout)
	})
	return cctx, func() { stop(); cancel(nil) }
}
