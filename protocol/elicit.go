package protocol

import "context"

// MethodElicitationComplete tells the UI that a server finished a URL-mode
// elicitation the user agreed to open (ElicitationCompleteParams): a UI
// that shows "continue in your browser" can close that notice. It is sent
// only for an elicitation the UI was asked to open with
// ui.open_url.request (purpose "elicitation"), at most once per
// elicitation.
const MethodElicitationComplete = "mcp.elicitation.complete"

// Purposes of a ui.open_url.request ([OpenURLParams.Purpose]).
const (
	// OpenURLLogin: the authorization page of a server's login.
	OpenURLLogin = "login"
	// OpenURLElicitation: a server's URL-mode elicitation (MCP
	// elicitation/create with mode "url"): the server asks the user to
	// continue on one of its pages, for example to enter a credential the
	// host must never see. Message carries the server's reason.
	OpenURLElicitation = "elicitation"
)

// ElicitationCompleteParams name the server and its elicitation id
// (mcp.elicitation.complete).
type ElicitationCompleteParams struct {
	Server        string `json:"server"`
	ElicitationID string `json:"elicitation_id"`
}

// ConfirmKindElicitation is the kind of a confirm that asks whether to
// open the page of a server's URL-mode elicitation ([ConfirmElicitation]).
const ConfirmKindElicitation = "elicitation"

// ConfirmElicitation details an elicitation confirm: which server asks the
// user to continue on which page, and why. Message is the server's claim,
// stripped of controls and bounded; URL has passed the runtime's browser
// check (https, or http on loopback) and its display check: show
// DisplayURL and DisplayHost ([DisplayForm]), open URL.
type ConfirmElicitation struct {
	Server string `json:"server"`
	URL    string `json:"url"`
	DisplayForm
	Message       string `json:"message,omitempty"`
	ElicitationID string `json:"elicitation_id,omitempty"`
}

// ElicitationCompleteHandler is implemented by a [Client] that wants the
// mcp.elicitation.complete notifications; [ClientHandler] ignores them
// otherwise.
type ElicitationCompleteHandler interface {
	ElicitationComplete(ctx context.Context, p *ElicitationCompleteParams) error
}

// elicitationComplete dispatches mcp.elicitation.complete to c when it
// wants it.
func elicitationComplete(c Client) func(context.Context, *ElicitationCompleteParams) error {
	return func(ctx context.Context, p *ElicitationCompleteParams) error {
		if h, ok := c.(ElicitationCompleteHandler); ok {
			return h.ElicitationComplete(ctx, p)
		}
		return nil
	}
}
