package protocol_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestAbandonedCallIsWithdrawn: a call whose context ends before the
// answer tells the peer with ui.request.cancelled (the id, the method and
// the reason from the context's cause), the peer's handler for that
// request is cancelled, and its late answer is ignored.
func TestAbandonedCallIsWithdrawn(t *testing.T) {
	handlerDone := make(chan error, 1)
	notes := make(chan protocol.RequestCancelledParams, 1)
	ui := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case protocol.MethodUIConfirm:
			select {
			case <-ctx.Done():
				handlerDone <- ctx.Err()
			case <-time.After(5 * time.Second):
				handlerDone <- errors.New("the handler was never cancelled")
			}
			return &protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}, nil // late
		case protocol.MethodUIRequestCancelled:
			var p protocol.RequestCancelledParams
			json.Unmarshal(params, &p)
			notes <- p
		}
		return nil, nil
	}
	runtimeEnd, _ := pairOpts(t, nil, ui, protocol.ConnOptions{AnnounceAbandoned: true}, protocol.ConnOptions{})
	for _, c := range []struct {
		cancel func(context.CancelCauseFunc)
		reason string
	}{
		{func(cancel context.CancelCauseFunc) { cancel(protocol.ReasonTimeout) }, "timeout"},
		{func(cancel context.CancelCauseFunc) { cancel(nil) }, "cancelled"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(100*time.Millisecond, func() { c.cancel(cancel) })
		err := runtimeEnd.Call(ctx, protocol.MethodUIConfirm, &protocol.ConfirmParams{Kind: protocol.ConfirmKindToolCall}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("abandoned call: %v", err)
		}
		select {
		case p := <-notes:
			if p.Method != protocol.MethodUIConfirm || p.Reason != c.reason || p.ID == 0 {
				t.Errorf("ui.request.cancelled = %+v, want reason %s", p, c.reason)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no ui.request.cancelled")
		}
		if err := <-handlerDone; !errors.Is(err, context.Canceled) {
			t.Errorf("the UI's handler: %v", err)
		}
	}
	// The late answers were ignored and the connection still works.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := runtimeEnd.Call(ctx, "ping", nil, nil); err != nil {
		t.Errorf("a call after the late answers: %v", err)
	}
}

// pairOpts is pair with options for each end.
func pairOpts(t *testing.T, a, b protocol.Handler, aopts, bopts protocol.ConnOptions) (*protocol.Conn, *protocol.Conn) {
	t.Helper()
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	ca := protocol.NewConn(ar, aw, a, aopts)
	cb := protocol.NewConn(br, bw, b, bopts)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ca.Run(ctx) }()
	go func() { defer wg.Done(); cb.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		aw.Close()
		bw.Close()
		wg.Wait()
	})
	return ca, cb
}
