package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/displayurl"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/agentrun"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/resultstore"
	"github.com/mcp-host/mcp-host/termsafe"
)

var _ protocol.Server = (*service)(nil)

// Initialize records the UI's capabilities and builds the permission gate
// around them: without confirm, calls follow the rules-only policy (deny
// rules, allow rules, trusted servers and remembered answers decide; what
// would need a confirm is denied).
func (s *service) Initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	version, verr := protocol.Negotiate(p)
	if verr != nil {
		return nil, verr
	}
	s.mu.Lock()
	if s.initialized {
		s.mu.Unlock()
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "initialize was already sent")
	}
	s.caps = p.Capabilities
	s.mu.Unlock()

	store, err := permission.OpenStore(s.opts.Permissions)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeFailed, "permissions: %v", err)
	}
	gopts := permission.Options{
		Deny: s.opts.Deny, Allow: s.opts.Allow, Store: store,
		Trusted:           s.m.Trusted,
		AutoAllowReadOnly: s.m.AutoAllowReadOnly,
		Identity:          s.m.Identity,
		ConfirmTimeout:    s.opts.ConfirmTimeout,
		Warn:              func(msg string) { s.logUI("warn", "", msg) },
	}
	if p.Capabilities.Confirm {
		gopts.Confirmer = permission.ConfirmFunc(s.confirmTool)
	} else {
		gopts.NonInteractive = permission.PolicyRulesOnly
	}
	gate, err := permission.New(gopts)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeFailed, "permission gate: %v", err)
	}
	agent, err := agentrun.NewAgent(agentrun.AgentOptions{Manager: s.m, Gate: gate, Adapter: s.opts.Adapter, Local: s.localTools, ToolSearch: s.toolSearchOptions(), UserPrompts: s.userPrompts, Results: s.results})
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "%v", err)
	}
	s.mu.Lock()
	s.gate, s.agent, s.initialized = gate, agent, true
	res := &protocol.InitializeResult{
		ProtocolVersion: version,
		ServerInfo:      protocol.Implementation{Name: "mcp-host", Version: s.opts.Version},
		Capabilities: protocol.RuntimeCapabilities{
			Runs: s.opts.Provider != nil, Model: s.opts.ModelName, Login: true, Apps: true, Primitives: true,
		},
		ConfigFiles: s.files,
		Problems:    s.problems,
	}
	s.mu.Unlock()
	// The snapshot is taken after initialized is set, so every later change
	// also arrives as an mcp.status notification: none is lost in between.
	res.Servers = s.list()
	s.seedStatuses(res.Servers)
	return res, nil
}

func (s *service) localTools(ctx context.Context) []core.Tool {
	if s.opts.Local == nil {
		return nil
	}
	return s.opts.Local(ctx, s.m)
}

// NoteDeprecated warns, once per session, that the UI used an alias the
// version after its own drops (protocol.Deprecations).
func (s *service) NoteDeprecated(_ context.Context, d protocol.Deprecation) {
	s.logUI("warn", "", fmt.Sprintf("the UI names %q by its old name %q (%s): %s drops it; send %q", d.New, d.Old, d.Where, d.Dropped, d.New))
}

func (s *service) logUI(level, server, msg string) {
	s.log.Info(msg, "server", server)
	s.mu.Lock()
	ready := s.initialized
	s.mu.Unlock()
	if ready {
		p := &protocol.LogParams{Level: level, Message: msg, Server: server}
		s.enqueue(func() { s.ui.Log(context.Background(), p) })
	}
}

func (s *service) list() []protocol.ServerStatus {
	sts := s.m.List()
	out := make([]protocol.ServerStatus, len(sts))
	for i, st := range sts {
		out[i] = s.wireStatus(st)
	}
	return out
}

// MCPList answers at once from the manager's snapshot.
func (s *service) MCPList(context.Context, *protocol.Empty) (*protocol.MCPListResult, error) {
	return &protocol.MCPListResult{Servers: s.list()}, nil
}

// MCPGet adds detail to a server's status: where it is, its stderr tail and
// its tools; it starts a lazy server that is stopped.
func (s *service) MCPGet(ctx context.Context, p *protocol.ServerParams) (*protocol.MCPGetResult, error) {
	if _, err := s.status(p.ID); err != nil {
		return nil, err
	}
	// Details are the live server's: a lazy server that is stopped starts
	// (its failure shows in the status).
	_ = s.m.Wake(ctx, p.ID)
	st, err := s.status(p.ID)
	if err != nil {
		return nil, err
	}
	d := protocol.ServerDetail{ServerStatus: s.wireStatus(st), Stderr: st.Stderr, ServerLog: st.ServerLog, ToolList: []protocol.ToolInfo{}}
	d.Instructions, d.InstructionsOff = s.m.Instructions(p.ID)
	s.mu.Lock()
	e := s.shown[p.ID]
	s.mu.Unlock()
	switch e.Config.TransportName() {
	case "stdio":
		d.Command = strings.Join(append([]string{e.Config.Command}, e.Config.Args...), " ")
		d.Environment = EnvironmentNames(e.Config)
	default:
		d.URL = e.Config.URL
		d.DisplayURL = displayurl.Text(e.Config.URL)
	}
	if tools, err := s.m.Tools(p.ID); err == nil {
		for _, t := range tools {
			// As tools.list: a name with controls or invisible characters
			// is never offered, so it is not listed either.
			if !adapter.SafeName(t.Name) {
				d.Warnings = append(slices.Clip(d.Warnings), fmt.Sprintf("tool %q left out: its name has control or invisible characters (shown stripped); it is never offered or called", termsafe.Line(t.Name)))
				continue
			}
			d.ToolList = append(d.ToolList, wireToolDef(p.ID, adapter.PublicName(p.ID, t.Name), t))
		}
	}
	return &protocol.MCPGetResult{Server: d}, nil
}

func (s *service) serverResult(id string) (*protocol.ServerResult, error) {
	st, err := s.status(id)
	if err != nil {
		return nil, err
	}
	return &protocol.ServerResult{Server: s.wireStatus(st)}, nil
}

// MCPReconnect drops the connection and connects again.
func (s *service) MCPReconnect(ctx context.Context, p *protocol.ServerParams) (*protocol.ServerResult, error) {
	if _, err := s.status(p.ID); err != nil {
		return nil, err
	}
	s.markReconnecting(p.ID)
	if err := s.m.Reconnect(p.ID); err != nil {
		s.unmarkReconnecting(p.ID)
		return nil, protocol.NewError(protocol.CodeFailed, protocol.ErrorData{Server: p.ID}, "%v", err)
	}
	return s.serverResult(p.ID)
}

// MCPEnable turns a server on for this process.
func (s *service) MCPEnable(ctx context.Context, p *protocol.ServerParams) (*protocol.ServerResult, error) {
	return s.setEnabled(p.ID, true)
}

// MCPDisable turns a server off for this process.
func (s *service) MCPDisable(ctx context.Context, p *protocol.ServerParams) (*protocol.ServerResult, error) {
	return s.setEnabled(p.ID, false)
}

func (s *service) setEnabled(id string, on bool) (*protocol.ServerResult, error) {
	if _, err := s.status(id); err != nil {
		return nil, err
	}
	if err := s.m.SetEnabled(id, on); err != nil {
		return nil, protocol.NewError(protocol.CodeFailed, protocol.ErrorData{Server: id}, "%v", err)
	}
	return s.serverResult(id)
}

// ToolsList returns the tools a run started now would see.
func (s *service) ToolsList(ctx context.Context, p *protocol.ToolsListParams) (*protocol.ToolsListResult, error) {
	if p.Server != "" {
		if _, err := s.status(p.Server); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	agent := s.agent
	s.mu.Unlock()
	snap, local, problems := agent.Tools(ctx)
	res := &protocol.ToolsListResult{Tools: []protocol.ToolInfo{}, Problems: problems, ToolSearch: wireToolSearch(agent.ToolSearch(snap.Tools()))}
	for _, t := range snap.Tools() {
		if p.Server != "" && t.Server() != p.Server {
			continue
		}
		res.Tools = append(res.Tools, wireToolDef(t.Server(), t.Name(), t.Definition()))
	}
	if p.Server == "" {
		for _, t := range local[len(snap.Tools()):] {
			res.Tools = append(res.Tools, protocol.ToolInfo{PublicName: t.Name(), Description: t.Description(), InputSchema: t.Schema()})
		}
	}
	return res, nil
}

// ToolCall calls a tool directly, behind the gate.
func (s *service) ToolCall(ctx context.Context, p *protocol.ToolCallParams) (*protocol.ToolCallResult, error) {
	st, err := s.status(p.Server)
	if err != nil {
		return nil, err
	}
	if st.Cached {
		// A lazy server that is stopped starts for the call, within the
		// call's context; a failed start shows in the status.
		_ = s.m.Wake(ctx, p.Server)
		if st, err = s.status(p.Server); err != nil {
			return nil, err
		}
	}
	wait := p.WaitReadyMS
	if wait == 0 {
		// A call right after initialize finds its server connecting:
		// it waits, as a call to a stopped lazy server does.
		wait = protocol.DefaultWaitReadyMS
	}
	budget := time.Duration(min(wait, protocol.MaxWaitReadyMS)) * time.Millisecond
	switch {
	case wait <= 0:
	case st.State == runtime.StateConnecting:
		wctx, cancel := context.WithTimeout(ctx, budget)
		sts, _ := s.m.WaitSettled(wctx, p.Server)
		cancel()
		if len(sts) == 1 {
			st = sts[0]
		}
	case st.State == runtime.StateError && !st.NextRetryAt.IsZero() && time.Until(st.NextRetryAt) < budget:
		// Between two attempts (its backoff): the call waits for the one
		// already scheduled, as it waits for a connecting server.
		wctx, cancel := context.WithTimeout(ctx, budget)
		st, _ = s.m.WaitRetry(wctx, p.Server)
		cancel()
	}
	if st.State != runtime.StateReady {
		return nil, protocol.NewError(protocol.CodeNotReady, protocol.ErrorData{Server: p.Server, State: string(st.State)}, "server %q is %s, not ready%s", p.Server, st.State, suffix(st.LastError))
	}
	if len(p.Arguments) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(p.Arguments, &obj); err != nil {
			return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "arguments", Server: p.Server, Tool: p.Tool}, "tool.call: params field \"arguments\" must be a JSON object")
		}
	}
	s.mu.Lock()
	agent := s.agent
	s.mu.Unlock()
	pctx, written := s.toolCallProgress(ctx, p) // progress.go
	res, v, err := agent.CallTool(pctx, p.Server, p.Tool, p.Arguments)
	written()
	out, err := s.toolCallResult(ctx, p, res, v, err)
	if err == nil {
		out.App = s.openDirectApp(p.Server, p.Tool) // apps_wire.go
	}
	return out, err
}

// toolCallResult answers tool.call: the result, or an error that says in
// one sentence what happened (denied, cancelled, failed), with the server
// and tool as data.
func (s *service) toolCallResult(ctx context.Context, p *protocol.ToolCallParams, res *core.Result, v permission.Verdict, err error) (*protocol.ToolCallResult, error) {
	data := protocol.ErrorData{Server: p.Server, Tool: p.Tool, DecidedBy: v.By}
	switch {
	case errors.Is(err, agentrun.ErrDenied):
		return nil, protocol.NewError(protocol.CodeDenied, data, "tool %q of server %q: %s", p.Tool, p.Server, v.Reason)
	case err != nil && ctx.Err() != nil:
		return nil, protocol.NewError(protocol.CodeCancelled, data, "the call of tool %q of server %q was cancelled", p.Tool, p.Server)
	case err != nil:
		return nil, protocol.NewError(protocol.CodeFailed, data, "%v", err)
	}
	return &protocol.ToolCallResult{Result: wireResult(res), DecidedBy: v.By}, nil
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// RunStart starts a turn in the background and answers with its id.
func (s *service) RunStart(ctx context.Context, p *protocol.RunStartParams) (*protocol.RunStartResult, error) {
	if s.opts.Provider == nil {
		return nil, protocol.Errorf(protocol.CodeNoModel, "no model is configured: the runtime was started without --model NAME (an OpenAI-compatible API) or --script FILE")
	}
	if strings.TrimSpace(p.Prompt) == "" && len(p.Messages) == 0 && len(p.Attach) == 0 {
		return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "prompt"}, "run.start: params field \"prompt\" is required: the user's message")
	}
	turn, err := s.userTurn(ctx, p) // primitives.go
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	conv := p.Conversation
	history, ok := s.convs[conv]
	if conv != "" && !ok {
		s.mu.Unlock()
		return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "conversation"}, "run.start: unknown conversation %q: pass the conversation an earlier run.start answered", conv)
	}
	if conv == "" {
		s.nextConv++
		conv = fmt.Sprintf("c%d", s.nextConv)
	}
	s.nextRun++
	id := fmt.Sprintf("r%d", s.nextRun)
	// run.cancel and shutdown cancel with a cause, which withdraws the
	// run's pending confirm as "cancelled" (see confirmContext).
	runCtx, cancelCause := context.WithCancelCause(context.Background())
	cancel := func() { cancelCause(nil) }
	s.runs[id] = func() { cancelCause(protocol.ReasonCancelled) }
	agent := s.agent
	s.mu.Unlock()
	scope := s.convBegin(conv, id) // conversation.go

	msgs := append(append([]core.Message(nil), history...), turn...)
	// The run begins once its id is on the wire: the UI reads the answer
	// before any run.status or agent.event of the run. Its running status
	// goes out when the run has taken its tool snapshot, saying whether it
	// is in search mode, before any event of the run.
	protocol.OnReplied(ctx, func() {
		go s.run(runCtx, cancel, agent, id, conv, msgs, scope)
	})
	return &protocol.RunStartResult{RunID: id, Conversation: conv}, nil
}

func (s *service) run(ctx context.Context, cancel context.CancelFunc, agent *agentrun.Agent, id, conv string, msgs []core.Message, scope *resultstore.Scope) {
	defer cancel()
	var table *adapter.Table
	var snap *adapter.Snapshot
	var mu sync.Mutex
	finalSent := false
	rs := newRunState(id)
	ctx = context.WithValue(ctx, runKey{}, rs)
	prog := s.runProgress(id) // progress.go
	res, err := agent.Run(ctx, agentrun.RunRequest{
		Provider:   s.opts.Provider,
		Messages:   msgs,
		Results:    scope,
		OnTools:    func(sn *adapter.Snapshot, _ []string) { snap, table = sn, sn.Table() },
		OnVerdict:  func(req core.PermissionRequest, v permission.Verdict) { rs.verdict(req.Call.ID, v) },
		OnProgress: prog.report, // progress.go
		OnToolSearch: func(info *agentrun.ToolSearchInfo) {
			p := &protocol.RunStatusParams{RunID: id, Status: protocol.RunRunning, ToolSearch: wireToolSearch(info)}
			s.enqueue(func() { s.ui.RunStatus(context.Background(), p) })
		},
		OnEvent: func(e core.Event) {
			defer prog.after(e) // a call's progress follows its tool_call
			if e.Type == core.EventStatus {
				return // run.status comes from the result
			}
			p := wireEvent(id, e, table)
			guessOrigin(p.Call, snap)
			s.attachApp(p, snap, id, conv) // apps_wire.go
			if e.Type == core.EventPermission && p.Call != nil {
				if e.Phase == core.PermissionAsked {
					// Sent just before its confirm; dropped when the
					// rules decide without asking anyone.
					rs.heldAsked(p)
					return
				}
				p.DecidedBy = rs.decided(p.Call.ID)
			}
			if e.Type == core.EventFinal {
				p.Status = protocol.RunCompleted
				mu.Lock()
				finalSent = true
				mu.Unlock()
			}
			s.enqueue(func() { s.ui.AgentEvent(context.Background(), p) })
		},
	})
	st := &protocol.RunStatusParams{RunID: id, Status: protocol.RunFailed}
	if err != nil {
		st.Error = err.Error()
	} else {
		st.Status, st.Text, st.Steps = string(res.Status), res.Text, res.Steps
		if res.Err != nil {
			st.Error = res.Err.Error()
		}
	}
	mu.Lock()
	sent := finalSent
	mu.Unlock()
	if !sent {
		// The model gave no final answer (a plain deny, a cancel, a
		// failure, the step limit): the UI still gets the one final event
		// it closes the run's bubble on, saying why.
		p := &protocol.AgentEventParams{RunID: id, Type: protocol.EventFinal, Step: st.Steps, Text: st.Text, Status: st.Status,
			Reason: endReason(res, st, table), Error: st.Error}
		s.enqueue(func() { s.ui.AgentEvent(context.Background(), p) })
	}
	s.mu.Lock()
	delete(s.runs, id)
	if res != nil && res.Status != core.StatusCancelled && !s.convEnded(conv) {
		s.convs[conv] = res.Messages
	}
	s.mu.Unlock()
	s.convRunEnded(conv, id)
	s.enqueue(func() { s.ui.RunStatus(context.Background(), st) })
}

// endReason says in a sentence why a run ended without a final answer.
func endReason(res *core.RunResult, st *protocol.RunStatusParams, table *adapter.Table) string {
	switch st.Status {
	case protocol.RunCompleted:
		if res != nil && res.DeniedCall != nil {
			c := res.DeniedCall
			if table != nil {
				if o, ok := table.Lookup(c.Name); ok && o.Server != "" {
					return fmt.Sprintf("the user denied the call of tool %q of server %q, which ended the turn", o.Tool, o.Server)
				}
			}
			return fmt.Sprintf("the user denied the call of %q, which ended the turn", c.Name)
		}
		return "the run ended without an answer"
	case protocol.RunCancelled:
		return "the run was cancelled"
	case protocol.RunStepLimit:
		return "the run reached its step limit before the model gave an answer"
	}
	return "the run failed"
}

// RunCancel cancels a run in progress.
func (s *service) RunCancel(ctx context.Context, p *protocol.RunCancelParams) (*protocol.Empty, error) {
	s.mu.Lock()
	cancel, ok := s.runs[p.RunID]
	s.mu.Unlock()
	if !ok {
		return nil, protocol.NewError(protocol.CodeUnknownRun, protocol.ErrorData{RunID: p.RunID}, "no run %q is in progress", p.RunID)
	}
	cancel()
	return &protocol.Empty{}, nil
}

// Shutdown closes every run, session and child process; the runtime exits
// after answering.
func (s *service) Shutdown(ctx context.Context, p *protocol.Empty) (*protocol.Empty, error) {
	s.close()
	return &protocol.Empty{}, nil
}

// MCPApprove records the user's answer about a server a project file
// defines, pinned to the digest the UI showed.
func (s *service) MCPApprove(ctx context.Context, p *protocol.ApproveParams) (*protocol.ServerResult, error) {
	if p.Digest == "" {
		return nil, protocol.NewError(protocol.CodeInvalidParams, protocol.ErrorData{Field: "digest", Server: p.ID}, "mcp.approve: params field \"digest\" is required: the approval.digest of the status the user saw")
	}
	if _, err := s.status(p.ID); err != nil {
		return nil, err
	}
	if err := s.m.Approve(p.ID, p.Approve, p.Digest); err != nil {
		return nil, protocol.NewError(protocol.CodeFailed, protocol.ErrorData{Server: p.ID}, "%v", err)
	}
	return s.serverResult(p.ID)
}
