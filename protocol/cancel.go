package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// RequestCancelledParams tell the UI that the runtime stopped waiting for
// the answer to one of its requests (notification ui.request.cancelled):
// the UI closes the dialog; an answer sent anyway is ignored.
type RequestCancelledParams struct {
	// ID is the id of the runtime's request.
	ID int64 `json:"id"`
	// Method is the request's method (ui.confirm.request, …).
	Method string `json:"method"`
	// Reason is timeout (no answer within its timeout_ms or the login's
	// bound) or cancelled (its run or login was cancelled, its server went
	// away, or the runtime is shutting down).
	Reason string `json:"reason"`
}

// CancelReason is why the runtime abandoned a request to the UI; as a
// context's cancel cause it becomes RequestCancelledParams.Reason.
type CancelReason string

// Error returns the reason.
func (r CancelReason) Error() string { return string(r) }

// Reasons of ui.request.cancelled.
const (
	ReasonTimeout   CancelReason = "timeout"
	ReasonCancelled CancelReason = "cancelled"
)

// cancelRunning cancels the handler of the request a ui.request.cancelled
// names, if it is still running: its answer is no longer wanted.
func (c *Conn) cancelRunning(params json.RawMessage) {
	var p struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.ID)
	if err != nil {
		return
	}
	c.mu.Lock()
	cancel := c.running[fmt.Sprint(id.Raw())]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// abandonReason says why a call's context ended: its cause when that is a
// [CancelReason], else timeout for a deadline and cancelled otherwise.
func abandonReason(ctx context.Context) string {
	var r CancelReason
	if errors.As(context.Cause(ctx), &r) {
		return string(r)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return string(ReasonTimeout)
	}
	return string(ReasonCancelled)
}
