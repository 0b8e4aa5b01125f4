package session

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	caps  *answerCaps // the answer caps of calls that carry one
	max   int         // the session's response cap
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, isReq := msg.(*jsonrpc.Request)
	switch {
	case isReq && req.IsCall():
		c.calls.add(req.ID)
		if n := hostfetch.AnswerCap(ctx); n > 0 && n < c.max {
			c.caps.add(req.ID, n)
		}
	case isReq && req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.calls.remove(id)
				c.caps.remove(id)
			}
		}
	}
	err := c.Connection.Write(ctx, msg)
	if err != nil && isReq && req.IsCall() {
		c.calls.remove(req.ID)
		c.caps.remove(req.ID)
	}
	return err
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.calls.remove(resp.ID)
		c.caps.remove(resp.ID)
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
		_, _ = p.Write(msgs)
	}()
	select {
	case <-done:
	case <-time.After(100 * time.Millisecond):
	}
	return true
}
