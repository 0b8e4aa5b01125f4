package protocol

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// EventProgress is the agent.event type of a server's progress report
// about a tool call of the run (Call and Progress are set).
const EventProgress = "progress"

// EventTask is the agent.event type of a change in the state of the task
// a server made of a tool call of the run (Call and Task are set).
const EventTask = "task"

// MethodToolProgress is the notification of a server's progress report
// about a direct tool.call (ToolProgressParams).
const MethodToolProgress = "tool.progress"

// Progress is what a server reported about a tool call in flight. The
// runtime checks and bounds it: Progress grows with every report of a
// call, at most 10 reports a second reach the UI (the latest always,
// before the call's result), and Message is stripped to one line of at
// most 256 characters. Message is still server-controlled text.
type Progress struct {
	// Progress is how far the call has come.
	Progress float64 `json:"progress"`
	// Total is the value Progress reaches when done; absent when the
	// server does not know.
	Total float64 `json:"total,omitempty"`
	// Message is the server's words about it.
	Message string `json:"message,omitempty"`
	// Coalesced counts the server's reports since the previous one the
	// UI got that the runtime left out (at most ten reports a second
	// reach the UI per call; a report that goes backwards is dropped).
	Coalesced int `json:"coalesced,omitempty"`
}

// ToolProgressParams carry a progress report about a direct tool.call
// (notification tool.progress).
type ToolProgressParams struct {
	// RequestID is the JSON-RPC id of the tool.call request it is about.
	RequestID any    `json:"request_id"`
	Server    string `json:"server"`
	Tool      string `json:"tool"`
	// Progress is a progress report; absent on a task report.
	Progress *Progress `json:"progress,omitempty"`
	// Task is the new state of the task the server made of the call
	// (the MCP tasks extension); absent on a progress report.
	Task *TaskState `json:"task,omitempty"`
}

// Task statuses (TaskState.Status), as the MCP tasks extension names them.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskState is the state of the task a server made of a tool call (the
// MCP tasks extension, SEP-2663): the runtime follows the task to its end
// and reports each change; the call's result comes as usual.
type TaskState struct {
	// ID is the server's id of the task.
	ID string `json:"id"`
	// Status is one of the Task* constants.
	Status string `json:"status"`
	// Message is the server's words about it: one line, stripped, at
	// most 256 characters (server-controlled text nonetheless).
	Message string `json:"message,omitempty"`
}

// ToolProgressHandler is implemented by a [Client] that wants the
// tool.progress notifications of its direct tool calls; [ClientHandler]
// ignores them otherwise.
type ToolProgressHandler interface {
	ToolProgress(ctx context.Context, p *ToolProgressParams) error
}

// toolProgress dispatches tool.progress to c when it wants it.
func toolProgress(c Client) func(context.Context, *ToolProgressParams) error {
	return func(ctx context.Context, p *ToolProgressParams) error {
		if h, ok := c.(ToolProgressHandler); ok {
			return h.ToolProgress(ctx, p)
		}
		return nil
	}
}

type requestIDKey struct{}

// RequestID returns the JSON-RPC id (an int64 or a string) of the
// request whose handler ctx belongs to, on a [Conn].
func RequestID(ctx context.Context) (any, bool) {
	id, ok := ctx.Value(requestIDKey{}).(jsonrpc.ID)
	if !ok || !id.IsValid() {
		return nil, false
	}
	return id.Raw(), true
}

func withRequestID(ctx context.Context, id jsonrpc.ID) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}
