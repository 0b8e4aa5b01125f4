package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-host/mcp-host/core"
)

// A Run is the script of the runs whose prompt contains PromptContains
// (every run when it is empty). Each such run plays its own copy of Steps
// from the top, so runs in flight at the same time never take each other's
// steps, and a run that ends early leaves nothing behind for the next.
type Run struct {
	// PromptContains selects the runs this entry plays for: those whose
	// prompt (the last user message when the run starts) contains it.
	PromptContains string `json:"prompt_contains,omitempty"`
	// Steps are the run's model answers, taken in order as in the array
	// form (conditional steps included).
	Steps []Step `json:"steps"`
}

// runEntry marks the steps of one [Run] inside the flat list of steps that
// [Parse] and [Runs] return, so that [New] can tell the two forms apart.
type runEntry struct {
	prompt string
	steps  []Step
}

// Runs returns steps that make [New] a provider with a queue per run: each
// run plays the steps of the first of runs whose PromptContains its prompt
// holds.
func Runs(runs ...Run) []Step {
	var out []Step
	for i := range runs {
		e := &runEntry{prompt: runs[i].PromptContains, steps: runs[i].Steps}
		for _, s := range runs[i].Steps {
			s.run = e
			out = append(out, s)
		}
	}
	return out
}

// runsOf returns the runs that steps came from, in order, or nil when
// steps are the array form.
func runsOf(steps []Step) []*runEntry {
	var out []*runEntry
	for _, s := range steps {
		if s.run != nil && (len(out) == 0 || out[len(out)-1] != s.run) {
			out = append(out, s.run)
		}
	}
	return out
}

// parseRuns reads the object form: {"runs": [{"prompt_contains", "steps"}]}.
func parseRuns(data []byte) ([]Step, error) {
	var doc struct {
		Runs []Run `json:"runs"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("scripted: parse script: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("scripted: parse script: data after the script object")
	}
	if len(doc.Runs) == 0 {
		return nil, fmt.Errorf("scripted: parse script: no runs in \"runs\"")
	}
	for i, r := range doc.Runs {
		if len(r.Steps) == 0 {
			return nil, fmt.Errorf("scripted: parse script: run %d: no steps", i)
		}
		if err := checkSteps(r.Steps, fmt.Sprintf("run %d, ", i)); err != nil {
			return nil, err
		}
	}
	return Runs(doc.Runs...), nil
}

// checkSteps reports a call without a tool name.
func checkSteps(steps []Step, where string) error {
	for i, s := range steps {
		for j, c := range s.Calls {
			if c.Name == "" {
				return fmt.Errorf("scripted: parse script: %sstep %d, call %d: no tool name", where, i, j)
			}
			if len(c.Args) > 0 && len(c.Arguments) > 0 {
				return fmt.Errorf("scripted: parse script: %sstep %d, call %d: both \"args\" and \"arguments\" (they are one field: give one)", where, i, j)
			}
		}
		if s.Capture != "" {
			if _, err := regexp.Compile(s.Capture); err != nil {
				return fmt.Errorf("scripted: parse script: %sstep %d: capture: %w", where, i, err)
			}
		}
	}
	return nil
}

// queue is one run's copy of its steps.
type queue struct {
	steps []Step
	next  int
}

// take returns the queue's next step that applies to results, skipping for
// good the conditional steps that do not, or nil when none is left.
func (q *queue) take(results []string) *Step {
	for q.next < len(q.steps) {
		s := &q.steps[q.next]
		q.next++
		if s.WhenResultContains == "" || containsAny(results, s.WhenResultContains) {
			return s
		}
	}
	return nil
}

// runStep returns the step for a model call of a run, in the runs form.
// A run is told apart by its context (core passes a run's context to every
// model call of it); a model call whose conversation ends with the user's
// message is the first of a run and starts a fresh queue. p.mu is held.
func (p *Provider) runStep(ctx context.Context, req core.Request) (*Step, error) {
	key := ctx.Done()
	q := p.queues[key]
	if q == nil || startsRun(req.Messages) {
		prompt := lastUser(req.Messages)
		var entry *runEntry
		for _, e := range p.runs {
			if strings.Contains(prompt, e.prompt) {
				entry = e
				break
			}
		}
		if entry == nil {
			return nil, fmt.Errorf("no run of the script has a prompt_contains that the prompt %q holds", prompt)
		}
		if p.queues == nil {
			p.queues = make(map[<-chan struct{}]*queue)
		}
		if _, known := p.queues[key]; !known && key != nil {
			// The run's queue goes with its context.
			context.AfterFunc(ctx, func() {
				p.mu.Lock()
				delete(p.queues, key)
				p.mu.Unlock()
			})
		}
		q = &queue{steps: entry.steps}
		p.queues[key] = q
	}
	return q.take(trailingResults(req.Messages)), nil
}

// startsRun reports whether msgs is the conversation of a run's first model
// call: it ends with the user's message (later calls end with tool results).
func startsRun(msgs []core.Message) bool {
	return len(msgs) == 0 || msgs[len(msgs)-1].Role == core.RoleUser
}

func lastUser(msgs []core.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == core.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// resolve returns the public name a script's tool name stands for: a name
// the run offers is kept; "server/tool" becomes the public name of the one
// tool whose description starts with its origin "[MCP server/tool]" (how
// the runtime describes MCP tools to the model). Any other name, or one
// that several tools match, is kept as written, and the run reports it as
// an unknown tool.
func resolve(name string, tools []core.ToolDef) string {
	if !strings.Contains(name, "/") {
		return name
	}
	prefix := "[MCP " + name + "]"
	found := ""
	for _, t := range tools {
		if t.Name == name {
			return name
		}
		if d, ok := strings.CutPrefix(t.Description, prefix); ok && (d == "" || d[0] == ' ') {
			if found != "" {
				return name // ambiguous
			}
			found = t.Name
		}
	}
	if found == "" {
		return name
	}
	return found
}
