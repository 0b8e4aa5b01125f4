package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/internal/suggest"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/resources"
	"github.com/mcp-host/mcp-host/runtime/resultstore"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sources returns the sessions of the ready servers.
func sources(m *runtime.Manager) []resources.Source {
	var out []resources.Source
	for _, st := range m.List() {
		if st.State != runtime.StateReady {
			continue
		}
		if s, err := m.Session(st.ID); err == nil {
			out = append(out, resources.Source{Server: st.ID, Session: s})
		}
	}
	return out
}

// AgentOptions configure an [Agent].
type AgentOptions struct {
	// Manager supplies the servers and their tools. Required.
	Manager *runtime.Manager
	// Gate decides every MCP tool call. Required: there is no ungated way
	// to call an MCP tool.
	Gate *permission.Gate
	// Adapter limits schemas and results.
	Adapter adapter.Options
	// Local returns the embedder's own tools, built afresh for each run,
	// after the resource, prompt and skill tools of the ready servers
	// (runtime/resources), which every run gets. Tools that reach a server
	// must gate themselves.
	Local func(ctx context.Context) []core.Tool
	// UserPrompts, when set, reports the servers whose prompts the UI
	// offers to the user: the model's prompt tools leave them out.
	UserPrompts func(server string) bool
	// MaxSteps bounds model calls per run; 0 means core.DefaultMaxSteps.
	MaxSteps int
	// ToolSearch is the catalog budget above which a run searches the
	// catalog instead of offering it whole (see [Agent.SetToolSearch]).
	ToolSearch ToolSearchOptions
	// Results, when set, keeps whole the results cut at the output
	// budget and offers the model the host tool adapter.ResultReadTool to
	// read them: in the conversation's scope a run is given
	// (RunRequest.Results), else in a scope of the run's own, removed when
	// it ends.
	Results *resultstore.Store
}

// An Agent runs agent turns over the manager's servers: every run gets a
// snapshot of the ready servers' tools as gated adapters, so a catalog that
// changes during a run applies to the next one.
type Agent struct {
	opts AgentOptions
	ts   toolSearch
}

// NewAgent checks opts and returns an agent.
func NewAgent(opts AgentOptions) (*Agent, error) {
	if opts.Manager == nil {
		return nil, errors.New("runtime: agent: nil Manager")
	}
	if opts.Gate == nil {
		return nil, errors.New("runtime: agent: nil Gate")
	}
	a := &Agent{opts: opts}
	a.ts.opts = opts.ToolSearch
	return a, nil
}

// Tools returns the tools a run started now would see: the adapted tools
// of the ready servers and the local tools.
func (a *Agent) Tools(ctx context.Context) (*adapter.Snapshot, []core.Tool, []string) {
	srcs := sources(a.opts.Manager)
	for i := range srcs {
		srcs[i].NoPrompts = a.opts.UserPrompts != nil && a.opts.UserPrompts(srcs[i].Server)
	}
	local := resources.Tools(srcs, a.opts.Gate, a.opts.Adapter.OutputBudget())
	if a.opts.Local != nil {
		local = append(local, a.opts.Local(ctx)...)
	}
	names := make([]string, len(local), len(local)+2)
	for i, t := range local {
		names[i] = t.Name()
	}
	// Reserved for the search tool of a run in search mode, so that it
	// resolves as a local tool (see searchMode), and for the reader of
	// kept results.
	names = append(names, SearchToolName, adapter.ResultReadTool)
	snap, problems := a.opts.Manager.Catalog(a.opts.Adapter, names)
	return snap, append(snap.CoreTools(), local...), problems
}

// RunRequest is one agent turn.
type RunRequest struct {
	// Provider is the model.
	Provider core.Provider
	// Messages is the conversation, ending with the new user message.
	Messages []core.Message
	// OnEvent receives the run's events in order (see core.RunOptions).
	OnEvent func(core.Event)
	// OnTools, when set, receives the run's tool snapshot before the run
	// starts, for resolving public names in events to their origin.
	OnTools func(snap *adapter.Snapshot, problems []string)
	// OnVerdict, when set, receives the gate's verdict on every MCP tool
	// call of the run (what decided it), before the run's permission
	// event about the decision.
	OnVerdict func(req core.PermissionRequest, v permission.Verdict)
	// OnProgress, when set, receives the servers' progress reports about
	// the run's MCP tool calls (see ToolProgress), on the sessions'
	// goroutines: it must not block.
	OnProgress func(ToolProgress)
	// OnToolSearch, when set, is called once before the run starts, after
	// OnTools, with the run's search mode: nil when the catalog is offered
	// whole, else the catalog that exceeded the budget.
	OnToolSearch func(info *ToolSearchInfo)
	// Results, when set, is the conversation's scope of kept results: the
	// run keeps its cut results there and reads those of the
	// conversation's earlier runs; the caller closes it when the
	// conversation ends.
	Results *resultstore.Scope
}

// Run runs one turn: the model sees the tool snapshot taken now, and every
// MCP tool call passes the gate before it reaches its server. A catalog
// over the agent's tool-search budget is not handed to the model whole:
// it gets a search tool and the tools it finds (see [ToolSearchOptions]).
func (a *Agent) Run(ctx context.Context, req RunRequest) (*core.RunResult, error) {
	snap, tools, problems := a.Tools(ctx)
	if scope := req.Results; scope != nil || a.opts.Results != nil {
		if scope == nil {
			scope = a.opts.Results.Scope()
			defer scope.Close()
		}
		ctx = adapter.WithKeeper(ctx, scope)
		tools = append(tools, scope.Tool(a.opts.Adapter.OutputBudget()))
	}
	if req.OnTools != nil {
		req.OnTools(snap, problems)
	}
	// The instructions wrap the model itself, so that in search mode they
	// follow the tools each model call is offered.
	model := withInstructions(req.Provider, snap, instructionsFor(a.opts.Manager, snap))
	tools, provider, search := a.searchMode(snap, tools, model)
	if req.OnToolSearch != nil {
		req.OnToolSearch(search)
	}
	ctx, hook := trackProgress(ctx, req.OnProgress, a.opts.Gate.HookNotify(req.OnVerdict))
	ctx, endRun := traceRun(ctx)
	res, err := core.Run(ctx, core.RunOptions{
		Provider:   traceModel(provider),
		Messages:   req.Messages,
		Tools:      tools,
		Permission: hook,
		OnEvent:    req.OnEvent,
		MaxSteps:   a.opts.MaxSteps,
	})
	endRun(err)
	return res, err
}

// ErrDenied is returned (wrapped) by [Agent.CallTool] when the gate refuses
// a call.
var ErrDenied = errors.New("call denied")

// CallTool calls one MCP tool directly, outside a model turn, still behind
// the gate. tool is the server's own name for it. The verdict says who
// decided; a denied call returns an error matching ErrDenied.
func (a *Agent) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*core.Result, permission.Verdict, error) {
	// A lazy server starts first: the gate judges the definition it
	// offers now, not the one kept from its last run.
	if err := a.opts.Manager.Wake(ctx, server); err != nil {
		return nil, permission.Verdict{}, err
	}
	tools, err := a.opts.Manager.Tools(server)
	if err != nil {
		return nil, permission.Verdict{}, err
	}
	var def *mcp.Tool
	for _, t := range tools {
		if t.Name == tool {
			def = t
			break
		}
	}
	if def == nil {
		names := make([]string, 0, len(tools))
		for _, t := range tools {
			names = append(names, t.Name)
		}
		if s := suggest.Closest(tool, names); s != "" {
			return nil, permission.Verdict{}, fmt.Errorf("server %q has no tool %q: did you mean %q? (after include_tools/exclude_tools)", server, termsafe.Line(tool), termsafe.Line(s))
		}
		return nil, permission.Verdict{}, fmt.Errorf("server %q has no tool %q (after include_tools/exclude_tools)", server, termsafe.Line(tool))
	}
	t, err := adapter.New(server, def, a.opts.Manager.Caller(server), a.opts.Adapter)
	if err != nil {
		return nil, permission.Verdict{}, err
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	v, err := a.opts.Gate.Check(ctx, t, args)
	if err != nil {
		return nil, v, err
	}
	if !v.Allow {
		return nil, v, fmt.Errorf("server %q tool %q: %w by %s: %s", server, tool, ErrDenied, v.By, v.Reason)
	}
	res, err := t.Call(ctx, args)
	return res, v, err
}
