package session

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of a close while requests are in flight: the server is likely
// stuck in one, so it gets short waits instead of the full grace period.
// Their sum, with the final wait after the kill, is under 3 seconds.
const (
	busyStdinWait = 500 * time.Millisecond // after cancelling and closing stdin
	busyTermWait  = time.Second            // after SIGTERM
	killWait      = time.Second            // after SIGKILL, for the tree to be gone
	// exitedWait is how long the rest of the tree may take to follow a
	// leader that exited on its own.
	exitedWait = 250 * time.Millisecond
	pollEvery  = 50 * time.Millisecond
)

// inFlight is the set of our requests the server has not answered (nor
// been told to cancel).
type inFlight struct {
	mu  sync.Mutex
	ids map[jsonrpc.ID]struct{}
}

func (f *inFlight) add(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids == nil {
		f.ids = map[jsonrpc.ID]struct{}{}
	}
	f.ids[id] = struct{}{}
}

func (f *inFlight) remove(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.ids, id)
}

// take empties the set and returns what was in it.
func (f *inFlight) take() []jsonrpc.ID {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]jsonrpc.ID, 0, len(f.ids))
	for id := range f.ids {
		out = append(out, id)
	}
	f.ids = nil
	return out
}

// stdioConn is the SDK's connection over the pipes, watching requests go
// out and answers come in.
type stdioConn struct {
	mcp.Connection
	calls *inFlight
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, isReq := msg.(*jsonrpc.Request)
	switch {
	case isReq && req.IsCall():
		c.calls.add(req.ID)
	case isReq && req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.calls.remove(id)
			}
		}
	}
	err := c.Connection.Write(ctx, msg)
	if err != nil && isReq && req.IsCall() {
		c.calls.remove(req.ID)
	}
	return err
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.calls.remove(resp.ID)
	}
	return msg, err
}

// cancelCalls tells the server to cancel every request in flight and
// reports whether there was any. It waits briefly for the notices to be
// written, never for a server that does not read.
func (p *stdioProcess) cancelCalls() bool {
	ids := p.calls.take()
	if len(ids) == 0 {
		return false
	}
	var msgs []byte
	for _, id := range ids {
		b, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"method":  "notifications/cancelled",
			"params":  map[string]any{"requestId": id.Raw(), "reason": "the host is closing the session"},
		})
		if err == nil {
			msgs = append(append(msgs, b...), '\n')
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = p.stdin.Write(msgs)
	}()
	select {
	case <-done:
	case <-time.After(100 * time.Millisecond):
	}
	return true
}

// shutdown ends the server and everything it started, in bounded time:
//
//  1. requests in flight are cancelled (notifications/cancelled) and stdin
//     is closed, which asks a well-behaved server to exit;
//  2. if the server or anything it started is still running after the grace
//     period, SIGTERM goes to the process group and to every descendant
//     that left it (Linux; on Windows the Job Object is terminated in step
//     3, as Windows has no polite signal for a windowless process);
//  3. after another grace period, SIGKILL the same way, and a last wait.
//
// When requests were in flight the server is likely stuck in one, so the
// waits are short: everything is over within about 2.5 seconds, instead of
// two grace periods plus the kill. Adopted descendants are reaped.
func (p *stdioProcess) shutdown() error {
	p.closeOnce.Do(func() {
		p.tree.scan(true) // while the parent chains are intact
		stdinWait, termWait := p.grace, p.grace
		if p.cancelCalls() {
			stdinWait, termWait = min(p.grace, busyStdinWait), min(p.grace, busyTermWait)
		}
		p.stdin.Close()
		if !p.settle(stdinWait) {
			p.tree.signal(false)
			if !p.settle(termWait) {
				p.tree.signal(true)
				p.settle(killWait)
			}
		}
		p.tree.release()
		p.stdout.Close()
		select {
		case <-p.exited:
		default:
			p.closeErr = errors.New("stdio server did not exit")
		}
	})
	return p.closeErr
}

// settle waits up to d for the leader to exit and the rest of the tree to
// follow it, and reports whether both happened. The rest of the tree gets
// at most exitedWait once the leader is gone.
func (p *stdioProcess) settle(d time.Duration) bool {
	deadline := time.Now().Add(d)
	select {
	case <-p.exited:
	case <-time.After(d):
		return false
	}
	if rest := time.Now().Add(exitedWait); rest.Before(deadline) {
		deadline = rest
	}
	for {
		if !p.tree.alive() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}
