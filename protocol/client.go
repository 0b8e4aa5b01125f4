package protocol

import "context"

// Client is what the runtime asks of a UI: its requests (confirm, prompt,
// open a URL, elicitation) and its notifications (status, run events,
// logs). A UI implements it and serves it with [ClientHandler]; the runtime
// calls it through [NewClientCaller].
type Client interface {
	Confirm(ctx context.Context, p *ConfirmParams) (*ConfirmResult, error)
	Prompt(ctx context.Context, p *PromptParams) (*PromptResult, error)
	OpenURL(ctx context.Context, p *OpenURLParams) (*OpenURLResult, error)
	Elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error)

	MCPStatus(ctx context.Context, p *MCPStatusParams) error
	RunStatus(ctx context.Context, p *RunStatusParams) error
	AgentEvent(ctx context.Context, p *AgentEventParams) error
	Log(ctx context.Context, p *LogParams) error
}

// ClientHandler returns the Handler that dispatches the runtime's requests
// and notifications to c.
func ClientHandler(c Client) Handler {
	return table{
		MethodUIConfirm:           method(MethodUIConfirm, c.Confirm),
		MethodUIPrompt:            method(MethodUIPrompt, c.Prompt),
		MethodUIOpenURL:           method(MethodUIOpenURL, c.OpenURL),
		MethodUIElicit:            method(MethodUIElicit, c.Elicit),
		MethodMCPStatus:           notification(MethodMCPStatus, c.MCPStatus),
		MethodRunStatus:           notification(MethodRunStatus, c.RunStatus),
		MethodAgentEvent:          notification(MethodAgentEvent, c.AgentEvent),
		MethodLog:                 notification(MethodLog, c.Log),
		MethodToolProgress:        notification(MethodToolProgress, toolProgress(c)),
		MethodResourcesUpdated:    notification(MethodResourcesUpdated, resourceUpdated(c)),
		MethodElicitationComplete: notification(MethodElicitationComplete, elicitationComplete(c)),
		MethodUIRequestCancelled: notification(MethodUIRequestCancelled, func(ctx context.Context, p *RequestCancelledParams) error {
			if rc, ok := c.(RequestCancelledHandler); ok {
				return rc.RequestCancelled(ctx, p)
			}
			return nil // the request's handler has been cancelled already
		}),
	}.handler()
}

// RequestCancelledHandler is implemented by a [Client] that wants to see
// ui.request.cancelled notifications; [ClientHandler] cancels the context
// of the named request's handler in any case.
type RequestCancelledHandler interface {
	RequestCancelled(ctx context.Context, p *RequestCancelledParams) error
}

// clientCaller implements Client by sending over a Conn.
type clientCaller struct{ c *Conn }

// NewClientCaller returns a Client whose methods send requests and
// notifications to the UI over c: what the runtime uses.
func NewClientCaller(c *Conn) Client { return clientCaller{c} }

func (u clientCaller) Confirm(ctx context.Context, p *ConfirmParams) (*ConfirmResult, error) {
	return call[ConfirmResult](ctx, u.c, MethodUIConfirm, p)
}
func (u clientCaller) Prompt(ctx context.Context, p *PromptParams) (*PromptResult, error) {
	return call[PromptResult](ctx, u.c, MethodUIPrompt, p)
}
func (u clientCaller) OpenURL(ctx context.Context, p *OpenURLParams) (*OpenURLResult, error) {
	return call[OpenURLResult](ctx, u.c, MethodUIOpenURL, p)
}
func (u clientCaller) Elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
	return call[ElicitResult](ctx, u.c, MethodUIElicit, p)
}
func (u clientCaller) MCPStatus(_ context.Context, p *MCPStatusParams) error {
	return u.c.Notify(MethodMCPStatus, p)
}
func (u clientCaller) RunStatus(_ context.Context, p *RunStatusParams) error {
	return u.c.Notify(MethodRunStatus, p)
}
func (u clientCaller) AgentEvent(_ context.Context, p *AgentEventParams) error {
	return u.c.Notify(MethodAgentEvent, p)
}
func (u clientCaller) Log(_ context.Context, p *LogParams) error {
	return u.c.Notify(MethodLog, p)
}
