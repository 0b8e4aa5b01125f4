package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcp-host/mcp-host/runtime/tracing"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TasksExtension is the identifier of the MCP tasks extension (SEP-2663,
// the 2026-07-28 revision): a server that declares it may answer a
// tools/call with a task to poll (tasks/get) instead of the result.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Task statuses (SEP-2663).
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// Bounds of following a task.
const (
	// DefaultTaskTimeout bounds a task from the tools/call that created
	// it to its terminal status, when [Options.TaskTimeout] is zero.
	DefaultTaskTimeout = 30 * time.Minute
	// minTaskPoll and maxTaskPoll clamp the server's pollIntervalMs;
	// defaultTaskPoll is used when it gives none.
	minTaskPoll     = 100 * time.Millisecond
	maxTaskPoll     = 10 * time.Second
	defaultTaskPoll = time.Second
	// taskCancelTimeout bounds the tasks/cancel sent when the caller
	// gives up.
	taskCancelTimeout = 5 * time.Second
)

// TaskState is what [WithTaskState] reports about a task a server made of
// a tool call: its id, status and the server's words about it (one line,
// stripped, at most [MaxProgressMessage] runes).
type TaskState struct {
	ID      string
	Status  string
	Message string
}

type taskKey struct{}

// WithTaskState returns a context whose tool calls report, to fn, the
// state of the task a server makes of them (see [Session.CallTool]): once
// when the task is created and again whenever its status or message
// changes. fn is called on the calling goroutine, in order.
func WithTaskState(ctx context.Context, fn func(TaskState)) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, taskKey{}, fn)
}

// taskWire is a Task as the server sends it (CreateTaskResult, tasks/get).
type taskWire struct {
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	PollIntervalMs *float64        `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result"`
	Error          *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (t *taskWire) state() TaskState {
	msg := t.StatusMessage
	if len(msg) > maxProgressInput {
		msg = msg[:maxProgressInput]
	}
	return TaskState{ID: termsafe.LineMax(t.TaskID, MaxProgressMessage), Status: termsafe.LineMax(t.Status, 32), Message: termsafe.LineMax(msg, MaxProgressMessage)}
}

func (t *taskWire) terminal() bool {
	switch t.Status {
	case TaskCompleted, TaskFailed, TaskCancelled:
		return true
	}
	return false
}

// pollInterval is the server's pollIntervalMs, clamped.
func (t *taskWire) pollInterval() time.Duration {
	if t.PollIntervalMs == nil {
		return defaultTaskPoll
	}
	d := time.Duration(*t.PollIntervalMs * float64(time.Millisecond))
	return min(max(d, minTaskPoll), maxTaskPoll)
}

// offersTasks reports whether the server declared the tasks extension.
func (s *Session) offersTasks() bool {
	caps := s.Info().Capabilities
	if caps == nil || caps.Extensions == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// withTasks declares the tasks extension in the client's capabilities.
func withTasks(caps *mcp.ClientCapabilities) *mcp.ClientCapabilities {
	caps.AddExtension(TasksExtension, map[string]any{})
	return caps
}

// callToolTask makes a tools/call that says, per request, that the client
// takes a task for an answer (SEP-2663), and follows the task to its end
// when the server makes one: it polls tasks/get at the server's interval
// (clamped to 100 ms … 10 s) within the session's task timeout, reports
// each new state to the context's [WithTaskState] listener, returns the
// task's result, and sends tasks/cancel when ctx ends first. A task that
// needs input (input_required) is cancelled: answering inputRequests
// (tasks/update) is not implemented.
func (s *Session) callToolTask(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	meta := params.GetMeta()
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaKeyClientCapabilities] = map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}
	if v := s.Info().ProtocolVersion; v >= "2026-07-28" {
		meta[mcp.MetaKeyProtocolVersion] = v
		meta[mcp.MetaKeyClientInfo] = s.opts.ClientInfo
	}
	// Session.Call bypasses the SDK's sending middleware: the span and
	// the trace context (SEP-414) are this call's own.
	name := "tools/call"
	if tracing.On() {
		name += " " + params.Name
	}
	ctx, span := tracing.StartClient(ctx, name, attribute.String("mcp.method.name", "tools/call"),
		attribute.String("mcp_host.server", s.opts.ID), attribute.String("gen_ai.tool.name", params.Name))
	params.SetMeta(tracing.InjectMeta(ctx, meta))
	if params.Arguments == nil {
		params.Arguments = map[string]any{}
	}
	var raw json.RawMessage
	err := s.Call(ctx, "tools/call", params, &raw)
	tracing.End(span, err)
	if err != nil {
		return nil, err
	}
	var t taskWire
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("server %q: tools/call %s: decode result: %w", s.opts.ID, params.Name, err)
	}
	if t.ResultType != "task" {
		var res mcp.CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("server %q: tools/call %s: decode result: %w", s.opts.ID, params.Name, err)
		}
		return &res, nil
	}
	return s.followTask(ctx, params.Name, &t)
}

// followTask polls task t until it ends; see callToolTask.
func (s *Session) followTask(ctx context.Context, tool string, t *taskWire) (*mcp.CallToolResult, error) {
	where := fmt.Sprintf("server %q: tool %q: task %q", s.opts.ID, tool, termsafe.LineMax(t.TaskID, 80))
	if t.TaskID == "" {
		return nil, fmt.Errorf("server %q: tool %q: the server answered with a task without a taskId", s.opts.ID, tool)
	}
	report, _ := ctx.Value(taskKey{}).(func(TaskState))
	if report == nil {
		report = func(TaskState) {}
	}
	timeout := s.opts.TaskTimeout
	if timeout <= 0 {
		timeout = DefaultTaskTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// ended is the answer once tctx is done: the caller gave up, or the
	// task timeout passed (also while a tasks/get was on its way).
	ended := func() error {
		s.cancelTask(t.TaskID)
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w (the task was cancelled)", where, ctx.Err())
		}
		return fmt.Errorf("%s did not end within the task timeout of %s; it was cancelled: %w", where, timeout, tctx.Err())
	}
	last := t.state()
	report(last)
	for !t.terminal() {
		if t.Status == TaskInputRequired {
			s.cancelTask(t.TaskID)
			return nil, fmt.Errorf("%s needs input (inputRequests), which mcp-host does not answer yet; the task was cancelled", where)
		}
		timer := time.NewTimer(t.pollInterval())
		select {
		case <-tctx.Done():
			timer.Stop()
			return nil, ended()
		case <-timer.C:
		}
		var next taskWire
		if err := s.Call(tctx, "tasks/get", map[string]any{"taskId": t.TaskID}, &next); err != nil {
			if tctx.Err() == nil && s.pollCanRetry(err) {
				// The server is unreachable for now (restarting, a
				// network blip): the task lives on at the server, so
				// it is polled again, up to the task timeout.
				s.opts.logger().Warn("tasks/get failed; polling again", "server", s.opts.ID, "task", t.TaskID, "error", clean(err))
				backoff := 2 * float64(t.pollInterval()/time.Millisecond)
				t.PollIntervalMs = &backoff // clamped by pollInterval
				continue
			}
			if tctx.Err() != nil {
				return nil, ended()
			}
			// The host follows the task no further (its result refused
			// over the cap, say): the server need not keep it.
			s.cancelTask(t.TaskID)
			return nil, fmt.Errorf("%s: %w; the task was cancelled", where, err)
		}
		if next.TaskID != t.TaskID {
			s.cancelTask(t.TaskID)
			return nil, fmt.Errorf("%s: tasks/get answered about another task", where)
		}
		t = &next
		if st := t.state(); st != last {
			last = st
			report(st)
		}
	}
	switch t.Status {
	case TaskCompleted:
		var res mcp.CallToolResult
		if len(t.Result) == 0 {
			return nil, fmt.Errorf("%s completed without a result", where)
		}
		if err := json.Unmarshal(t.Result, &res); err != nil {
			return nil, fmt.Errorf("%s: decode result: %w", where, err)
		}
		return &res, nil
	case TaskFailed:
		msg := "no error given"
		if t.Error != nil {
			msg = fmt.Sprintf("%s (code %d)", t.Error.Message, t.Error.Code)
		}
		return nil, fmt.Errorf("%s failed: %s", where, termsafe.LineMax(msg, MaxProgressMessage))
	}
	return nil, errors.New(where + " was cancelled by the server")
}

// cancelTask asks the server to cancel a task the caller no longer
// follows (cooperative: the answer is not waited for beyond a bound).
func (s *Session) cancelTask(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), taskCancelTimeout)
	defer cancel()
	var ack json.RawMessage
	if err := s.Call(ctx, "tasks/cancel", map[string]any{"taskId": id}, &ack); err != nil {
		s.opts.logger().Debug("tasks/cancel failed", "server", s.opts.ID, "error", err)
	}
}

// pollCanRetry reports whether a failed tasks/get may be sent again: the
// failure was the transport's (no JSON-RPC answer from the server) and the
// session itself is still open, so the task can still be reached.
func (s *Session) pollCanRetry(err error) bool {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) || errors.Is(err, ErrClosed) {
		return false
	}
	_, _, cerr := s.current()
	return cerr == nil
}
