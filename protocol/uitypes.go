package protocol

import "encoding/json"

// Confirm kinds.
const (
	ConfirmKindToolCall = "tool_call"
	ConfirmKindLogin    = "login"
)

// Tool-call confirm answers (ConfirmResult.Answer).
const (
	AnswerAllowOnce      = "allow_once"
	AnswerAlwaysTool     = "always_tool"
	AnswerAlwaysServer   = "always_server"
	AnswerDeny           = "deny"
	AnswerDenyWithReason = "deny_with_reason"
	// AnswerYes and AnswerNo answer a login confirm.
	AnswerYes = "yes"
	AnswerNo  = "no"
)

// ConfirmParams ask the user a question (ui.confirm.request). The runtime
// stops waiting after TimeoutMS and treats silence as a deny.
type ConfirmParams struct {
	// Kind is tool_call, login or elicitation.
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	Message string `json:"message"`
	// Options are the answers the UI offers, in order.
	Options []string `json:"options"`
	// Tool details a tool_call confirm.
	Tool *ConfirmTool `json:"tool,omitempty"`
	// Login details a login confirm.
	Login *ConfirmLogin `json:"login,omitempty"`
	// Elicitation details an elicitation confirm.
	Elicitation *ConfirmElicitation `json:"elicitation,omitempty"`
	TimeoutMS   int64               `json:"timeout_ms"`
	// RunID, CallID and Step name the run, the model's tool call and the
	// step a tool_call confirm belongs to (empty for a direct tool.call
	// and a login): the permission agent.event with phase asked for the
	// same call_id comes before this request.
	RunID  string `json:"run_id,omitempty"`
	CallID string `json:"call_id,omitempty"`
	Step   int    `json:"step,omitempty"`
	// App is set when an app asks: its tool call (kind tool_call), its
	// message (app_message) or its link (app_open_link).
	App *AppConfirm `json:"app,omitempty"`
}

// ConfirmTool is what the user needs to decide about a tool call.
type ConfirmTool struct {
	Server     string `json:"server"`
	Tool       string `json:"tool"`
	PublicName string `json:"public_name,omitempty"`
	Title      string `json:"title,omitempty"`
	// Arguments are pretty-printed and bounded.
	Arguments          string `json:"arguments"`
	ArgumentsTruncated bool   `json:"arguments_truncated,omitempty"`
	// Annotations are the server's claims, untrusted.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Changed: the tool was always allowed, but its definition changed.
	Changed bool `json:"changed,omitempty"`
	// ChangedFields names what changed when Changed: "title",
	// "description", "input schema", "annotations"; empty when the host
	// cannot tell (an answer recorded by an older version).
	ChangedFields []string `json:"changed_fields,omitempty"`
	// Description is the tool's description as the server claims it:
	// stripped of controls, newlines kept, at most 1000 characters.
	// Server-controlled text: show it as the server's claim, escaped.
	Description string `json:"description,omitempty"`
}

// ConfirmLogin is what the user needs to decide about a login.
type ConfirmLogin struct {
	Server string `json:"server"`
	// Issuer is the authorization server, as its metadata names it.
	Issuer string `json:"issuer,omitempty"`
	// IssuerDisplay is the issuer to show: its display form ([DisplayForm]),
	// or, when the issuer has userinfo or hidden characters, a quote of it
	// marked as not shown.
	IssuerDisplay string `json:"issuer_display,omitempty"`
	// IssuerHost is the issuer's host in the form [DisplayForm.DisplayHost]
	// describes.
	IssuerHost string `json:"issuer_host,omitempty"`
	// URL is empty: the login confirm comes before the client registers
	// with the authorization server, so the authorization URL is not known
	// yet (it arrives with ui.open_url.request or ui.prompt.request). Kept
	// for UIs that read it.
	URL string `json:"url"`
}

// ConfirmResult answers ui.confirm.request.
type ConfirmResult struct {
	// Answer is one of the request's Options.
	Answer string `json:"answer"`
	// Reason goes with deny_with_reason; the model sees it.
	Reason string `json:"reason,omitempty"`
}

// PromptParams ask the user for a line of text (ui.prompt.request), such as
// the redirect URL of a login finished in a browser elsewhere.
type PromptParams struct {
	Title   string `json:"title"`
	Message string `json:"message"`
	// URL is for the user to open, when the prompt is a paste-back.
	URL string `json:"url,omitempty"`
	// DisplayForm is URL's form to show.
	DisplayForm
	TimeoutMS int64 `json:"timeout_ms"`
}

// PromptResult answers ui.prompt.request.
type PromptResult struct {
	Value     string `json:"value"`
	Cancelled bool   `json:"cancelled,omitempty"`
}

// OpenURLParams ask a UI that declared open_url to open a URL
// (ui.open_url.request), after the user consented.
type OpenURLParams struct {
	// URL is the URL to open, exactly as given.
	URL string `json:"url"`
	// DisplayForm is URL's form to show: show it, open URL.
	DisplayForm
	Server string `json:"server,omitempty"`
	// Purpose is "login" or "elicitation" ([OpenURLLogin],
	// [OpenURLElicitation]).
	Purpose string `json:"purpose,omitempty"`
	// Message is the server's reason for an elicitation, stripped of
	// controls and bounded; empty for a login.
	Message string `json:"message,omitempty"`
	// ElicitationID is the server's id of a URL-mode elicitation; the
	// matching mcp.elicitation.complete carries it.
	ElicitationID string `json:"elicitation_id,omitempty"`
}

// DisplayForm is how a URL is shown to a person, beside the raw URL that
// is opened. The runtime sets it on every URL it asks the UI to show or
// open (ui.open_url.request, a login's paste-back prompt, the confirms of
// an elicitation's page and an app's link), after checking the URL: it
// has no userinfo ("https://good.com@evil.com" is refused) and no
// invisible, bidirectional, control or space character. A UI shows these
// fields, never a host read from URL itself: a look-alike host
// ("аpple.com" with a Cyrillic "а") is shown in its ASCII form,
// "xn--pple-43d.com".
type DisplayForm struct {
	// DisplayURL is the URL with its host in ASCII (IDNA, punycode) form.
	DisplayURL string `json:"display_url,omitempty"`
	// DisplayHost is the host (with the port the URL names) in ASCII form,
	// followed by its Unicode form in parentheses only when the whole host
	// is written in a single script: "xn--pple-43d.com",
	// "xn--bcher-kva.example (bücher.example)".
	DisplayHost string `json:"display_host,omitempty"`
}

// OpenURLResult answers ui.open_url.request.
type OpenURLResult struct {
	Opened bool `json:"opened"`
}

// ElicitParams pass a server's elicitation request to the UI
// (ui.elicit.request).
type ElicitParams struct {
	Server          string          `json:"server"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requested_schema,omitempty"`
	// URL is set for URL-mode elicitation.
	URL       string `json:"url,omitempty"`
	TimeoutMS int64  `json:"timeout_ms"`
	// Attempt numbers the asks of one elicitation when it is asked again
	// (2, 3, …; absent on the first ask): the last answer did not match
	// RequestedSchema, Invalid says which fields failed and Content is
	// that answer, for the form to show again. See [MaxElicitAsks].
	Attempt int                `json:"attempt,omitempty"`
	Invalid []ElicitFieldError `json:"invalid,omitempty"`
	Content map[string]any     `json:"content,omitempty"`
}

// ElicitResult answers ui.elicit.request: accept (with content), decline
// or cancel.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}
