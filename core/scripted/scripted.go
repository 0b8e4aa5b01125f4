// Package scripted is a [core.Provider] that plays a fixed script instead of
// calling a model: each model call takes the next step of the script, which
// says some text, calls tools, or fails. Steps can be made conditional on the
// last tool results, so one script can react to allowed, denied or failed
// calls. It is meant for tests and demos.
//
// A script is either one queue of steps shared by every model call, or a
// list of [Run]s: each run plays its own copy of the steps of the first
// entry that matches its prompt. A scripted tool call names its tool by
// the public name the run offers or as "server/tool": the provider finds
// the tool whose definition's description starts with "[MCP server/tool]",
// the origin the runtime puts there.
//
// Like all of core, it must not import anything but the standard library
// and core's own packages (core/...).
package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/mcp-host/mcp-host/core"
)

// A Step is one scripted model answer.
type Step struct {
	// WhenResultContains, if set, makes the step conditional: it is used
	// only when one of the tool results the model has just received (the
	// tool messages at the end of the conversation) contains this text.
	WhenResultContains string `json:"when_result_contains,omitempty"`
	// Text is the answer's text, streamed in word-sized deltas.
	Text string `json:"text,omitempty"`
	// Calls are the tool calls the answer asks for.
	Calls []Call `json:"calls,omitempty"`
	// Error, if set, makes the model call fail with this message.
	Error string `json:"error,omitempty"`
	// Capture, if set, is a regular expression looked for in the tool
	// results and the user's messages of the conversation, the latest
	// first: its first submatch (or whole match) replaces every
	// "{{capture}}" in the step's call arguments, JSON-escaped. A script
	// uses it to pass on what only a result (or the user) tells, such as
	// an id.
	Capture string `json:"capture,omitempty"`
	// Before, if set, runs before the step is answered, with the model
	// call's context and request; an error fails the model call. Tests use
	// it to block, to synchronize, or to inspect requests.
	Before func(ctx context.Context, req core.Request) error `json:"-"`

	run *runEntry // the run of the runs form the step belongs to
}

// A Call is one scripted tool call.
type Call struct {
	// ID of the call; empty gets a generated ID.
	ID string `json:"id,omitempty"`
	// Name of the tool: the public name the run offers, or "server/tool"
	// (sent as the public name of that server's tool; see the package
	// documentation).
	Name string `json:"name"`
	// Args are sent verbatim, so a script can also send invalid arguments.
	// Empty means no arguments.
	Args json.RawMessage `json:"args,omitempty"`
	// Arguments is Args under the name tool.call gives them in the UI
	// protocol; a call gives one or the other.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// args returns the call's arguments, under either name.
func (c Call) args() json.RawMessage {
	if len(c.Args) > 0 {
		return c.Args
	}
	return c.Arguments
}

// Say returns a step that answers text.
func Say(text string) Step { return Step{Text: text} }

// CallTool returns a step that calls the tool name with args, given as a
// JSON document.
func CallTool(name, args string) Step {
	return Step{Calls: []Call{{Name: name, Args: json.RawMessage(args)}}}
}

// Parse reads a script: a JSON array of steps (one queue that every model
// call takes the next step from), or an object {"runs": [...]} of [Run]s
// (a queue per run; the steps returned then make [New] play them so). A
// field the format does not know (a typo such as "call" for "calls") is an
// error naming it, not a step that silently does nothing.
func Parse(data []byte) ([]Step, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return parseRuns(data)
	}
	var steps []Step
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&steps); err != nil {
		return nil, fmt.Errorf("scripted: parse script: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("scripted: parse script: data after the array of steps")
	}
	if err := checkSteps(steps, ""); err != nil {
		return nil, err
	}
	return steps, nil
}

// ErrScriptEnded is returned (wrapped) when a model call finds no step left
// to play.
var ErrScriptEnded = errors.New("scripted: no matching step left in the script")

// Provider plays a script. It is safe for concurrent use. With steps of
// the array form, steps are taken in order by successive model calls,
// whichever run makes them; with steps of the runs form ([Runs], or [Parse]
// of an object), each run plays its own queue.
type Provider struct {
	mu       sync.Mutex
	steps    []Step
	next     int
	calls    int
	requests []core.Request
	runs     []*runEntry
	queues   map[<-chan struct{}]*queue // by the run's ctx.Done()
}

// New returns a provider that plays steps.
func New(steps ...Step) *Provider { return &Provider{steps: steps, runs: runsOf(steps)} }

// Stream answers req with the next step. A conditional step whose condition
// does not hold is skipped for good; the first step that applies is used.
// Calls named "server/tool" are sent as the public name of that tool in
// req.Tools.
func (p *Provider) Stream(ctx context.Context, req core.Request, onDelta func(core.Delta)) (*core.Response, error) {
	p.mu.Lock()
	p.calls++
	callNo := p.calls
	p.requests = append(p.requests, copyRequest(req))
	var step *Step
	if p.runs != nil {
		var err error
		if step, err = p.runStep(ctx, req); err != nil {
			p.mu.Unlock()
			return nil, fmt.Errorf("scripted: model call %d: %w", callNo, err)
		}
	} else {
		shared := queue{steps: p.steps, next: p.next}
		step = shared.take(trailingResults(req.Messages))
		p.next = shared.next
	}
	p.mu.Unlock()
	if step == nil {
		return nil, fmt.Errorf("model call %d: %w", callNo, ErrScriptEnded)
	}
	if step.Before != nil {
		if err := step.Before(ctx, req); err != nil {
			return nil, fmt.Errorf("scripted: model call %d: %w", callNo, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scripted: model call %d: %w", callNo, err)
	}
	if step.Error != "" {
		return nil, fmt.Errorf("scripted: model call %d: %s", callNo, step.Error)
	}
	if onDelta != nil {
		for _, piece := range words(step.Text) {
			onDelta(core.Delta{Text: piece})
		}
	}
	resp := &core.Response{Text: step.Text, FinishReason: core.FinishStop}
	captured, err := capture(step.Capture, req.Messages)
	if err != nil {
		return nil, fmt.Errorf("scripted: model call %d: %w", callNo, err)
	}
	for i, c := range step.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("scripted_%d_%d", callNo, i)
		}
		args := c.args()
		if step.Capture != "" {
			args = json.RawMessage(bytes.ReplaceAll(args, []byte("{{capture}}"), captured))
		}
		resp.ToolCalls = append(resp.ToolCalls, core.ToolCall{ID: id, Name: resolve(c.Name, req.Tools), Args: args})
	}
	if len(resp.ToolCalls) > 0 {
		resp.FinishReason = core.FinishToolCalls
	}
	return resp, nil
}

// Requests returns copies of the requests received so far, in order.
func (p *Provider) Requests() []core.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]core.Request(nil), p.requests...)
}

// Remaining returns how many steps of the array form have not been played
// or skipped (0 for the runs form, whose runs each play their own copy).
func (p *Provider) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.steps) - p.next
}

func copyRequest(req core.Request) core.Request {
	return core.Request{
		Messages: append([]core.Message(nil), req.Messages...),
		Tools:    append([]core.ToolDef(nil), req.Tools...),
	}
}

// capture returns the first submatch (or the match) of the expression
// expr in the tool results and user messages of msgs, the latest first,
// JSON-escaped without its quotes; nil when expr is empty or matches
// nothing.
func capture(expr string, msgs []core.Message) ([]byte, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != core.RoleTool && msgs[i].Role != core.RoleUser {
			continue
		}
		m := re.FindStringSubmatch(msgs[i].Content)
		if m == nil {
			continue
		}
		v := m[len(m)-1]
		if len(m) > 1 {
			v = m[1]
		}
		q, _ := json.Marshal(v)
		return q[1 : len(q)-1], nil
	}
	return nil, nil
}

// trailingResults returns the text of the tool messages that end msgs.
func trailingResults(msgs []core.Message) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == core.RoleTool; i-- {
		out = append(out, msgs[i].Content)
	}
	return out
}

func containsAny(texts []string, sub string) bool {
	for _, t := range texts {
		if strings.Contains(t, sub) {
			return true
		}
	}
	return false
}

// words splits s into pieces that concatenate back to s, each a word with
// the spaces that follow it.
func words(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}
