package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of the progress a server reports (see [WithProgress]).
const (
	// ProgressInterval is the shortest time between two progress reports
	// delivered for one call: at most 10 a second, however fast the
	// server sends them.
	ProgressInterval = 100 * time.Millisecond
	// MaxProgressMessage bounds a progress message, in runes, after it
	// was stripped to one line.
	MaxProgressMessage = 256
	// maxProgressInput is how much of a message is looked at at all.
	maxProgressInput = 4 << 10
	// progressQuiet and progressDrainMax bound the wait at the end of a
	// call that had reports: the SDK hands over the answer at once but
	// the notifications read before it through a queue, so the call waits
	// until no report came for progressQuiet after the answer (at most
	// progressDrainMax) to deliver the server's last report before its
	// result.
	progressQuiet    = 50 * time.Millisecond
	progressDrainMax = time.Second
)

// Progress is one progress report of a server about a request in flight,
// as [WithProgress] delivers it: checked and stripped.
type Progress struct {
	// Progress is how far the request has come; it increases with every
	// report.
	Progress float64
	// Total is the value Progress reaches when done; 0 when unknown.
	Total float64
	// Message is the server's words about it: one line, stripped of
	// control, escape, bidi and invisible characters, at most
	// [MaxProgressMessage] runes (server-controlled text nonetheless).
	Message string
	// Dropped counts the server's reports since the one delivered before
	// this that the rate limit (or their going backwards) left out.
	Dropped int
}

type progressKey struct{}

// WithProgress returns a context whose tools/call requests (through
// [Session.CallTool]) carry a progressToken, so the server may report
// progress on them. The reports for that call reach fn, in order and on
// a goroutine of the session: fn must not block. A report is delivered
// only when it names the token of a call still in flight on this session
// (a server cannot address another server's calls, nor a call that has
// ended), when its progress is finite and greater than the last one, and
// at most once per [ProgressInterval]; reports in between are merged
// into the latest, which is always delivered, at the latest right before
// CallTool returns.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressTable maps the progress tokens of one session's calls in flight
// to their listeners.
type progressTable struct {
	mu     sync.Mutex
	prefix string
	seq    uint64
	calls  map[string]*progressCall
}

// attach gives params a fresh progress token when ctx carries a listener,
// and returns the function that ends the call's reports: it delivers the
// last report held back, then forgets the token.
func (t *progressTable) attach(ctx context.Context, params *mcp.CallToolParams) func() {
	fn, _ := ctx.Value(progressKey{}).(func(Progress))
	if fn == nil {
		return func() {}
	}
	t.mu.Lock()
	if t.prefix == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		t.prefix = hex.EncodeToString(b[:])
		t.calls = map[string]*progressCall{}
	}
	t.seq++
	token := fmt.Sprintf("mcp-host-%s-%d", t.prefix, t.seq)
	c := &progressCall{fn: fn}
	t.calls[token] = c
	t.mu.Unlock()
	params.SetProgressToken(token)
	return func() {
		if ctx.Err() == nil {
			c.drain()
		}
		t.mu.Lock()
		delete(t.calls, token)
		t.mu.Unlock()
		c.close()
	}
}

// dispatch routes one notifications/progress to its call; reports for
// tokens this session did not hand out, or no longer has, are dropped.
func (t *progressTable) dispatch(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return // every token this session hands out is a string
	}
	t.mu.Lock()
	c := t.calls[token]
	t.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	c.seen = time.Now()
	c.mu.Unlock()
	if math.IsNaN(p.Progress) || math.IsInf(p.Progress, 0) {
		return
	}
	total := p.Total
	if math.IsNaN(total) || math.IsInf(total, 0) || total < 0 {
		total = 0
	}
	msg := p.Message
	if len(msg) > maxProgressInput {
		msg = msg[:maxProgressInput]
	}
	c.offer(Progress{Progress: p.Progress, Total: total, Message: termsafe.LineMax(msg, MaxProgressMessage)})
}

// progressCall is the listener of one call and its rate limit.
type progressCall struct {
	fn func(Progress)

	mu       sync.Mutex
	accepted bool      // a report was accepted (held or delivered)
	high     float64   // the progress of the last accepted report
	sent     time.Time // when the last report was delivered
	seen     time.Time // when the last report arrived, accepted or not
	pending  *Progress // the latest report held back by the rate limit
	dropped  int       // reports left out since the last delivery
	timer    *time.Timer
	closed   bool
}

// offer takes a report: delivered now when the last delivery is at least
// ProgressInterval ago, else held (replacing an older held one) until then.
func (c *progressCall) offer(p Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.accepted && p.Progress <= c.high {
		c.dropped++
		return
	}
	c.accepted, c.high = true, p.Progress
	wait := ProgressInterval - time.Since(c.sent)
	if c.timer == nil && (c.sent.IsZero() || wait <= 0) {
		c.deliver(p)
		return
	}
	if c.pending != nil {
		c.dropped++
	}
	c.pending = &p
	if c.timer == nil {
		c.timer = time.AfterFunc(wait, c.flush)
	}
}

// deliver hands p to the listener; c.mu is held, which keeps reports in
// order.
func (c *progressCall) deliver(p Progress) {
	c.sent = time.Now()
	p.Dropped, c.dropped = c.dropped, 0
	c.fn(p)
}

func (c *progressCall) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = nil
	if c.closed || c.pending == nil {
		return
	}
	p := *c.pending
	c.pending = nil
	c.deliver(p)
}

// drain waits, after the call's answer, until its reports have been quiet
// for progressQuiet (counted from the answer or the last report, whichever
// is later), at most progressDrainMax; at once when it had none. A report
// the server sent right before its answer is read before it but handled
// by the SDK on another goroutine, and must not be lost.
func (c *progressCall) drain() {
	start := time.Now()
	deadline := start.Add(progressDrainMax)
	for {
		c.mu.Lock()
		seen := c.seen
		c.mu.Unlock()
		if seen.IsZero() {
			return
		}
		last := start
		if seen.After(last) {
			last = seen
		}
		wait := progressQuiet - time.Since(last)
		if wait <= 0 || time.Until(deadline) <= 0 {
			return
		}
		time.Sleep(min(wait, time.Until(deadline)))
	}
}

// close delivers the report held back, if any, and stops the call's
// reports.
func (c *progressCall) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.pending != nil {
		p := *c.pending
		c.pending = nil
		c.deliver(p)
	}
}
