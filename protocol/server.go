package protocol

import (
	"context"
	"encoding/json"
)

// Server is what the runtime does for a UI: one method per request the UI
// sends. `host serve` implements it; [NewServerCaller] implements it over a
// connection for a UI written in Go.
type Server interface {
	Initialize(ctx context.Context, p *InitializeParams) (*InitializeResult, error)
	MCPList(ctx context.Context, p *Empty) (*MCPListResult, error)
	MCPGet(ctx context.Context, p *ServerParams) (*MCPGetResult, error)
	MCPReconnect(ctx context.Context, p *ServerParams) (*ServerResult, error)
	MCPEnable(ctx context.Context, p *ServerParams) (*ServerResult, error)
	MCPDisable(ctx context.Context, p *ServerParams) (*ServerResult, error)
	MCPLogin(ctx context.Context, p *LoginParams) (*ServerResult, error)
	MCPLogout(ctx context.Context, p *LogoutParams) (*ServerResult, error)
	MCPApprove(ctx context.Context, p *ApproveParams) (*ServerResult, error)
	ToolsList(ctx context.Context, p *ToolsListParams) (*ToolsListResult, error)
	ToolCall(ctx context.Context, p *ToolCallParams) (*ToolCallResult, error)
	RunStart(ctx context.Context, p *RunStartParams) (*RunStartResult, error)
	RunCancel(ctx context.Context, p *RunCancelParams) (*Empty, error)
	Shutdown(ctx context.Context, p *Empty) (*Empty, error)
}

// method adapts a typed method to a Handler entry: it decodes params
// (absent params decode as the zero value) and reports bad or missing
// params as CodeInvalidParams, in a sentence that names the field.
func method[P, R any](name string, fn func(context.Context, *P) (*R, error)) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		p := new(P)
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, p); err != nil {
				return nil, paramsError(name, err)
			}
		}
		if v, ok := any(p).(validator); ok {
			if err := v.validate(name); err != nil {
				return nil, err
			}
		}
		r, err := fn(ctx, p)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// notification adapts a typed notification handler.
func notification[P any](name string, fn func(context.Context, *P) error) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		p := new(P)
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, p); err != nil {
				return nil, paramsError(name, err)
			}
		}
		return nil, fn(ctx, p)
	}
}

type table map[string]func(context.Context, json.RawMessage) (any, error)

func (t table) handler() Handler {
	return func(ctx context.Context, m string, params json.RawMessage) (any, error) {
		fn, ok := t[m]
		if !ok {
			return nil, NewError(CodeMethodNotFound, ErrorData{Method: m}, "unknown method %q", m)
		}
		return fn(ctx, params)
	}
}

// ServerHandler returns the Handler that dispatches the UI's requests to s.
func ServerHandler(s Server) Handler {
	t := table{
		MethodInitialize:   strict(MethodInitialize, s.Initialize),
		MethodMCPList:      strict(MethodMCPList, s.MCPList),
		MethodMCPGet:       strict(MethodMCPGet, s.MCPGet),
		MethodMCPReconnect: strict(MethodMCPReconnect, s.MCPReconnect),
		MethodMCPEnable:    strict(MethodMCPEnable, s.MCPEnable),
		MethodMCPDisable:   strict(MethodMCPDisable, s.MCPDisable),
		MethodMCPLogin:     strict(MethodMCPLogin, s.MCPLogin),
		MethodMCPLogout:    strict(MethodMCPLogout, s.MCPLogout),
		MethodMCPApprove:   strict(MethodMCPApprove, s.MCPApprove),
		MethodToolsList:    strict(MethodToolsList, s.ToolsList),
		MethodToolCall:     strict(MethodToolCall, s.ToolCall),
		MethodRunStart:     strict(MethodRunStart, s.RunStart),
		MethodRunCancel:    strict(MethodRunCancel, s.RunCancel),
		MethodShutdown:     strict(MethodShutdown, s.Shutdown),
	}
	addAppMethods(t, s)
	addRegistryMethods(t, s)
	addPrimitiveMethods(t, s)
	addPermissionMethods(t, s)
	addConversationMethods(t, s)
	return withDialects(t.handler(), s)
}

// serverCaller implements Server by sending requests over a Conn.
type serverCaller struct{ c *Conn }

// NewServerCaller returns a Server whose methods send requests to the
// runtime over c: what a Go UI uses.
func NewServerCaller(c *Conn) Server { return serverCaller{c} }

func call[R any](ctx context.Context, c *Conn, m string, p any) (*R, error) {
	r := new(R)
	if err := c.Call(ctx, m, p, r); err != nil {
		return nil, err
	}
	return r, nil
}

func (s serverCaller) Initialize(ctx context.Context, p *InitializeParams) (*InitializeResult, error) {
	return call[InitializeResult](ctx, s.c, MethodInitialize, p)
}
func (s serverCaller) MCPList(ctx context.Context, p *Empty) (*MCPListResult, error) {
	return call[MCPListResult](ctx, s.c, MethodMCPList, p)
}
func (s serverCaller) MCPGet(ctx context.Context, p *ServerParams) (*MCPGetResult, error) {
	return call[MCPGetResult](ctx, s.c, MethodMCPGet, p)
}
func (s serverCaller) MCPReconnect(ctx context.Context, p *ServerParams) (*ServerResult, error) {
	return call[ServerResult](ctx, s.c, MethodMCPReconnect, p)
}
func (s serverCaller) MCPEnable(ctx context.Context, p *ServerParams) (*ServerResult, error) {
	return call[ServerResult](ctx, s.c, MethodMCPEnable, p)
}
func (s serverCaller) MCPDisable(ctx context.Context, p *ServerParams) (*ServerResult, error) {
	return call[ServerResult](ctx, s.c, MethodMCPDisable, p)
}
func (s serverCaller) MCPLogin(ctx context.Context, p *LoginParams) (*ServerResult, error) {
	return call[ServerResult](ctx, s.c, MethodMCPLogin, p)
}
func (s serverCaller) MCPLogout(ctx context.Context, p *LogoutParams) (*ServerResult, error) {
	return call[ServerResult](ctx, s.c, MethodMCPLogout, p)
}
func (s serverCaller) MCPApprove(ctx context.Context, p *ApproveParams) (*ServerResult, error) {
	return call[ServerResult](ctx, s.c, MethodMCPApprove, p)
}
func (s serverCaller) ToolsList(ctx context.Context, p *ToolsListParams) (*ToolsListResult, error) {
	return call[ToolsListResult](ctx, s.c, MethodToolsList, p)
}
func (s serverCaller) ToolCall(ctx context.Context, p *ToolCallParams) (*ToolCallResult, error) {
	return call[ToolCallResult](ctx, s.c, MethodToolCall, p)
}
func (s serverCaller) RunStart(ctx context.Context, p *RunStartParams) (*RunStartResult, error) {
	return call[RunStartResult](ctx, s.c, MethodRunStart, p)
}
func (s serverCaller) RunCancel(ctx context.Context, p *RunCancelParams) (*Empty, error) {
	return call[Empty](ctx, s.c, MethodRunCancel, p)
}
func (s serverCaller) Shutdown(ctx context.Context, p *Empty) (*Empty, error) {
	return call[Empty](ctx, s.c, MethodShutdown, p)
}
