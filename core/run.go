package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// cancelledMsg is the result of a call that cancellation stopped before it
// completed (or before it started).
const cancelledMsg = "Cancelled: the run was cancelled before this call completed."

// Defaults of [RunOptions].
const (
	DefaultMaxSteps = 25
	DefaultGrace    = 2 * time.Second
)

// RunOptions configure one [Run].
type RunOptions struct {
	// Provider is the model. Required.
	Provider Provider
	// Messages is the conversation so far: usually a system message, earlier
	// turns, and the new user message. Run does not modify the slice.
	Messages []Message
	// Tools are the tools the model may call, typically a
	// [Registry.Snapshot]. Names must be valid and unique.
	Tools []Tool
	// Permission is asked before every tool call; nil allows every call.
	Permission PermissionHook
	// OnEvent receives the run's events, one at a time and in order, on a
	// goroutine of its own: the run loop queues events and never waits for
	// the handler, so a slow handler delays nothing but its own delivery.
	// Run returns only after the handler has returned from the last event
	// (the final status), except that once ctx is done Run waits at most
	// Grace for it and then drops the events not yet delivered. A handler
	// that never returns therefore holds Run until ctx is cancelled. The
	// handler must not call back into the run. Nil discards events.
	OnEvent func(Event)
	// MaxSteps bounds the number of model calls; 0 means DefaultMaxSteps.
	// When the model still asks for tools in the last allowed step, those
	// calls are not run and the run ends with StatusStepLimit.
	MaxSteps int
	// MaxParallel bounds how many calls of one step run at once; 0 runs all
	// calls of a step concurrently.
	MaxParallel int
	// Grace bounds how long Run waits, after ctx is done, for in-flight
	// tools to return and for OnEvent to drain; 0 means DefaultGrace. A
	// tool that ignores cancellation for longer is abandoned: its result is
	// recorded as cancelled and its eventual return is ignored.
	Grace time.Duration
}

// RunResult is the outcome of a [Run].
type RunResult struct {
	// Status is the final status.
	Status RunStatus
	// Text is the final answer of a completed run ("" otherwise).
	Text string
	// Messages is the input conversation followed by every message the run
	// added: assistant messages and one tool message per tool call, also
	// for calls that were not run, so that the conversation can be
	// continued with another Run.
	Messages []Message
	// Steps is the number of model calls made.
	Steps int
	// DeniedCall is the call whose plain deny ended the turn, if any.
	DeniedCall *ToolCall
	// Err is the cause of a failed run.
	Err error
}

// Run drives a conversation: it sends the messages and the tool definitions
// to the provider; when the model asks for tool calls it asks the
// permission hook about each, runs the allowed calls (concurrently), appends
// their results and calls the model again, until the model answers without
// tool calls (StatusCompleted), a plain deny ends the turn (StatusCompleted
// with DeniedCall set), ctx is done (StatusCancelled; in-flight tools see
// their context cancelled), the step limit is reached (StatusStepLimit), or
// the provider or the hook fails (StatusFailed).
//
// Unknown tools, invalid arguments, tool errors and tool panics become error
// results the model sees; they do not stop the run.
//
// Run returns an error, and a nil result, only for invalid options. For a
// failed run it returns the result together with its Err; otherwise the
// error is nil and the result's Status tells how the run ended.
func Run(ctx context.Context, opts RunOptions) (*RunResult, error) {
	if opts.Provider == nil {
		return nil, errors.New("core: run: no provider")
	}
	tools := make(map[string]Tool, len(opts.Tools))
	defs := make([]ToolDef, 0, len(opts.Tools))
	for _, t := range opts.Tools {
		if t == nil {
			return nil, errors.New("core: run: nil tool")
		}
		name := t.Name()
		if !ValidName(name) {
			return nil, fmt.Errorf("core: run: tool %q: invalid name (want 1-64 characters from [a-zA-Z0-9_-])", name)
		}
		if _, dup := tools[name]; dup {
			return nil, fmt.Errorf("core: run: tool %q: duplicate name", name)
		}
		tools[name] = t
		defs = append(defs, DefOf(t))
	}
	r := &runner{
		opts:  opts,
		tools: tools,
		defs:  defs,
		em:    newEmitter(opts.OnEvent),
		res:   &RunResult{Messages: append([]Message(nil), opts.Messages...)},
	}
	if r.opts.MaxSteps <= 0 {
		r.opts.MaxSteps = DefaultMaxSteps
	}
	if r.opts.Grace <= 0 {
		r.opts.Grace = DefaultGrace
	}
	r.em.emit(Event{Type: EventStatus, Status: StatusRunning})
	r.loop(ctx)
	if r.res.Status == StatusFailed {
		r.em.emit(Event{Type: EventError, Step: r.res.Steps, Error: r.res.Err.Error()})
	}
	r.em.emit(Event{Type: EventStatus, Step: r.res.Steps, Status: r.res.Status})
	r.em.finish(ctx, r.opts.Grace)
	if r.res.Status == StatusFailed {
		return r.res, r.res.Err
	}
	return r.res, nil
}

type runner struct {
	opts  RunOptions
	tools map[string]Tool
	defs  []ToolDef
	em    *emitter
	res   *RunResult
}

// outcome is the result of one call of a step.
type outcome struct {
	result *Result
	done   bool
}

func (r *runner) fail(err error) { r.res.Status, r.res.Err = StatusFailed, err }

func (r *runner) loop(ctx context.Context) {
	for step := 1; ; step++ {
		if ctx.Err() != nil {
			r.res.Status = StatusCancelled
			return
		}
		r.res.Steps = step
		resp, err := r.opts.Provider.Stream(ctx, Request{Messages: r.res.Messages, Tools: r.defs}, func(d Delta) {
			if d.Text != "" {
				r.em.emit(Event{Type: EventTextDelta, Step: step, Text: d.Text})
			}
		})
		if err == nil && resp == nil {
			err = errors.New("provider returned no response")
		}
		if err != nil {
			if ctx.Err() != nil {
				r.res.Status = StatusCancelled
				return
			}
			r.fail(fmt.Errorf("core: model call (step %d): %w", step, err))
			return
		}
		calls := normalizeCalls(step, resp.ToolCalls)
		r.res.Messages = append(r.res.Messages, Message{Role: RoleAssistant, Content: resp.Text, ToolCalls: calls})
		if len(calls) == 0 {
			r.res.Status, r.res.Text = StatusCompleted, resp.Text
			r.em.emit(Event{Type: EventFinal, Step: step, Text: resp.Text})
			return
		}
		for i := range calls {
			r.em.emit(Event{Type: EventToolCall, Step: step, Call: copyCall(calls[i])})
		}
		outs := make([]outcome, len(calls))
		if step >= r.opts.MaxSteps {
			r.finishStep(step, calls, outs, fmt.Sprintf("Not run: the step limit (%d model calls) was reached.", r.opts.MaxSteps))
			r.res.Status = StatusStepLimit
			return
		}
		if !r.runStep(ctx, step, calls, outs) {
			return
		}
	}
}

// runStep checks, gates and runs the calls of one step and appends their
// results. It reports whether the loop should go on.
func (r *runner) runStep(ctx context.Context, step int, calls []ToolCall, outs []outcome) bool {
	runnable := make([]int, 0, len(calls))
	for i := range calls {
		c := &calls[i]
		t, ok := r.tools[c.Name]
		if !ok {
			r.settle(step, c, &outs[i], ErrorResult(unknownToolMessage(c.Name, r.defs)))
			continue
		}
		args, msg := checkArgs(c.Name, c.Args)
		if msg != "" {
			r.settle(step, c, &outs[i], ErrorResult(msg))
			continue
		}
		c.Args = args
		if r.opts.Permission == nil {
			runnable = append(runnable, i)
			continue
		}
		r.em.emit(Event{Type: EventPermission, Step: step, Call: copyCall(*c), Phase: PermissionAsked})
		dec, err := r.opts.Permission(ctx, PermissionRequest{Step: step, Call: *c, Tool: t})
		if err != nil || ctx.Err() != nil {
			if ctx.Err() != nil {
				r.res.Status = StatusCancelled
				r.finishStep(step, calls, outs, cancelledMsg)
				return false
			}
			r.fail(fmt.Errorf("core: permission for tool %q (call %s): %w", c.Name, c.ID, err))
			r.finishStep(step, calls, outs, "Not run: the permission check failed.")
			return false
		}
		if dec.Kind != DecisionAllow && dec.Kind != DecisionDenyWithReason {
			dec = PermissionDecision{Kind: DecisionDeny}
		}
		r.em.emit(Event{Type: EventPermission, Step: step, Call: copyCall(*c), Phase: PermissionDecided, Decision: &dec})
		switch dec.Kind {
		case DecisionAllow:
			runnable = append(runnable, i)
		case DecisionDenyWithReason:
			reason := strings.TrimSpace(dec.Reason)
			if reason == "" {
				reason = "no reason given"
			}
			r.settle(step, c, &outs[i], ErrorResult("The user denied this tool call: "+reason))
		default:
			r.settle(step, c, &outs[i], ErrorResult("The user denied this tool call."))
			denied := *c
			r.res.DeniedCall = &denied
			r.res.Status = StatusCompleted
			r.finishStep(step, calls, outs, fmt.Sprintf("Not run, though allowed: the user denied %s in the same step, which ended the turn.", c.Name))
			return false
		}
	}
	r.execute(ctx, step, calls, outs, runnable)
	if ctx.Err() != nil {
		r.res.Status = StatusCancelled
		r.finishStep(step, calls, outs, cancelledMsg)
		return false
	}
	r.finishStep(step, calls, outs, "")
	return true
}

// execute runs calls[i] for every i in idx concurrently (bounded by
// MaxParallel) and records their outcomes as they complete. Once ctx is done
// it waits at most Grace for the calls still running.
func (r *runner) execute(ctx context.Context, step int, calls []ToolCall, outs []outcome, idx []int) {
	if len(idx) == 0 {
		return
	}
	type done struct {
		i   int
		res *Result
	}
	ch := make(chan done, len(idx)) // buffered: abandoned calls never block
	var sem chan struct{}
	if r.opts.MaxParallel > 0 {
		sem = make(chan struct{}, r.opts.MaxParallel)
	}
	for _, i := range idx {
		go func(i int) {
			if sem != nil {
				select {
				case sem <- struct{}{}:
					defer func() { <-sem }()
				case <-ctx.Done():
					ch <- done{i, ErrorResult(fmt.Sprintf("Tool %q was not run: the run was cancelled.", calls[i].Name))}
					return
				}
			}
			ch <- done{i, callTool(ctx, r.tools[calls[i].Name], calls[i])}
		}(i)
	}
	ctxDone := ctx.Done()
	var grace <-chan time.Time
	for pending := len(idx); pending > 0; {
		select {
		case d := <-ch:
			pending--
			r.settle(step, &calls[d.i], &outs[d.i], d.res)
		case <-ctxDone:
			ctxDone = nil
			t := time.NewTimer(r.opts.Grace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			return // the rest are settled as cancelled by finishStep
		}
	}
}

// callTool runs one call, turning errors and panics into error results.
func callTool(ctx context.Context, t Tool, c ToolCall) (res *Result) {
	defer func() {
		if p := recover(); p != nil {
			res = ErrorResult(fmt.Sprintf("Tool %q failed: it panicked: %v", c.Name, p))
		}
	}()
	res, err := t.Call(ctx, c.Args)
	if err != nil {
		if ctx.Err() != nil {
			// The run was cancelled: that is the whole story for the model
			// and the UI, not the chain of errors the cancellation caused.
			return ErrorResult(fmt.Sprintf("Tool %q was cancelled: the run was cancelled while it ran.", c.Name))
		}
		return ErrorResult(fmt.Sprintf("Tool %q failed: %v", c.Name, err))
	}
	if res == nil {
		res = &Result{}
	}
	return res
}

// settle records the outcome of one call and reports it.
func (r *runner) settle(step int, c *ToolCall, o *outcome, res *Result) {
	o.result, o.done = res, true
	r.em.emit(Event{Type: EventToolResult, Step: step, Call: copyCall(*c), Result: res})
}

// finishStep settles every call still open with an error result saying
// notRun, then appends one tool message per call, in the model's order.
func (r *runner) finishStep(step int, calls []ToolCall, outs []outcome, notRun string) {
	for i := range calls {
		if !outs[i].done {
			r.settle(step, &calls[i], &outs[i], ErrorResult(notRun))
		}
	}
	for i, c := range calls {
		res := outs[i].result
		r.res.Messages = append(r.res.Messages, Message{
			Role:       RoleTool,
			Content:    RenderResult(res),
			ToolCallID: c.ID,
			ToolName:   c.Name,
			Result:     res,
		})
	}
}

// copyCall returns a copy of c for an event, which the handler reads on
// another goroutine.
func copyCall(c ToolCall) *ToolCall { return &c }

// normalizeCalls gives every call a unique, non-empty ID.
func normalizeCalls(step int, calls []ToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(calls))
	seen := make(map[string]bool, len(calls))
	for i, c := range calls {
		if c.ID == "" || seen[c.ID] {
			c.ID = fmt.Sprintf("call_%d_%d", step, i)
			for seen[c.ID] {
				c.ID += "_"
			}
		}
		seen[c.ID] = true
		out[i] = c
	}
	return out
}

// checkArgs returns the arguments to pass to the tool ("{}" for absent
// arguments), or a message for the model saying why they are invalid.
func checkArgs(name string, args json.RawMessage) (json.RawMessage, string) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage("{}"), ""
	}
	if !json.Valid(trimmed) {
		return nil, fmt.Sprintf("Invalid arguments for tool %q: not valid JSON: %s. Send the arguments as one JSON object.", name, snippet(trimmed))
	}
	if trimmed[0] != '{' {
		return nil, fmt.Sprintf("Invalid arguments for tool %q: want a JSON object, got %s.", name, snippet(trimmed))
	}
	return trimmed, ""
}

func snippet(b []byte) string {
	const max = 200
	if len(b) > max {
		return strings.ToValidUTF8(string(b[:max]), "") + "…"
	}
	return string(b)
}

func unknownToolMessage(name string, defs []ToolDef) string {
	const max = 50
	names := make([]string, 0, min(len(defs), max))
	for i, d := range defs {
		if i == max {
			names = append(names, fmt.Sprintf("and %d more", len(defs)-max))
			break
		}
		names = append(names, d.Name)
	}
	avail := "none"
	if len(names) > 0 {
		avail = strings.Join(names, ", ")
	}
	return fmt.Sprintf("Unknown tool %q. Available tools: %s.", name, avail)
}
