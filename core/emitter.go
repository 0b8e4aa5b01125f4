package core

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// An emitter delivers a run's events to a handler on its own goroutine, so
// that the run loop never waits for the handler. Events queue without bound
// while the handler is busy.
type emitter struct {
	fn        func(Event)
	mu        sync.Mutex
	queue     []Event
	closed    bool
	wake      chan struct{}
	done      chan struct{}
	abandoned atomic.Bool
}

func newEmitter(fn func(Event)) *emitter {
	e := &emitter{fn: fn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if fn == nil {
		close(e.done)
		return e
	}
	go e.loop()
	return e
}

// emit queues ev; it never blocks on the handler.
func (e *emitter) emit(ev Event) {
	if e.fn == nil {
		return
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.queue = append(e.queue, ev)
	e.mu.Unlock()
	e.signal()
}

func (e *emitter) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *emitter) loop() {
	defer close(e.done)
	for {
		e.mu.Lock()
		q, closed := e.queue, e.closed
		e.queue = nil
		e.mu.Unlock()
		for _, ev := range q {
			if e.abandoned.Load() {
				return
			}
			e.fn(ev)
		}
		if len(q) == 0 {
			if closed {
				return
			}
			<-e.wake
		}
	}
}

// finish stops accepting events and waits until the handler has seen all
// queued events. Once ctx is done it waits at most grace more, then drops
// whatever the handler has not been given yet.
func (e *emitter) finish(ctx context.Context, grace time.Duration) {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.signal()
	select {
	case <-e.done:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-e.done:
	case <-t.C:
		e.abandoned.Store(true)
	}
}
