package protocol

import (
	"context"
	"encoding/json"
)

// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865): a tool
// names a ui:// resource, HTML the UI shows in a sandboxed frame. The
// runtime negotiates the extension with servers, reads and checks the
// resource, tells the UI which calls have an app (an app instance), and
// carries the app's own requests back to its server through the app.*
// methods below, behind the same permission gate as the model's calls.
const (
	// AppExtensionID is the extension's identifier in MCP capabilities.
	AppExtensionID = "io.modelcontextprotocol/ui"
	// AppMIMEType is the only MIME type of an app's UI resource.
	AppMIMEType = "text/html;profile=mcp-app"
	// AppVisibilityModel and AppVisibilityApp are the values of a tool's
	// visibility: offered to the model, callable by the server's apps.
	AppVisibilityModel = "model"
	AppVisibilityApp   = "app"
)

// Requests from the UI about an app instance. Each names the instance
// (app_id) it acts for; the runtime scopes the request to the server that
// owns the app.
const (
	// MethodAppReadResource reads the app's UI resource (no uri) or another
	// resource of the same server.
	MethodAppReadResource = "app.read_resource"
	// MethodAppCallTool calls a tool of the app's server for the app,
	// gated like a model's call.
	MethodAppCallTool = "app.call_tool"
	// MethodAppMessage adds the app's message to the conversation as the
	// user's, after the user consented (ui.confirm.request kind
	// app_message); it starts a run.
	MethodAppMessage = "app.message"
	// MethodAppOpenLink opens a link for the app after the user consented
	// (ui.confirm.request kind app_open_link): https, or http on loopback.
	MethodAppOpenLink = "app.open_link"
	// MethodAppClose forgets an app instance (its frame was closed).
	MethodAppClose = "app.close"
)

// Confirm kinds of app requests (ConfirmParams.Kind); both are answered
// AnswerYes or AnswerNo. An app's tool call is a ConfirmKindToolCall with
// ConfirmParams.App set.
const (
	ConfirmKindAppMessage = "app_message"
	ConfirmKindAppLink    = "app_open_link"
)

// CodeUnknownApp: no app instance with that id (never created, closed or
// forgotten).
const CodeUnknownApp = -32009

// KindUnknownApp is the error kind of CodeUnknownApp.
const KindUnknownApp = "unknown_app"

func init() { kinds[CodeUnknownApp] = KindUnknownApp }

// ToolApp says that a tool has an app (ToolInfo.App in tools.list and
// mcp.get): its UI resource and who may call it.
type ToolApp struct {
	// ResourceURI is the tool's ui:// resource (_meta.ui.resourceUri).
	ResourceURI string `json:"resource_uri"`
	// Visibility is the tool's _meta.ui.visibility, ["model","app"] when
	// the server gave none. A tool without "model" is not offered to the
	// model (it is absent from tools.list); a tool without "app" cannot be
	// called with app.call_tool.
	Visibility []string `json:"visibility"`
}

// AppInstance is one showing of an app: the app of one tool call. It is
// created when a call of a tool with an app starts (ToolCallInfo.App on the
// tool_call and tool_result agent.events, ToolCallResult.App for
// tool.call), and lives until app.close (or until the runtime forgets the
// oldest of many instances).
type AppInstance struct {
	// ID names the instance in app.* requests.
	ID string `json:"id"`
	// Server owns the app; Tool is the call that opened it.
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// ResourceURI is the app's UI resource.
	ResourceURI string `json:"resource_uri"`
	// RunID, CallID and Conversation name the run, the model's call and
	// the conversation that opened it (empty for tool.call).
	RunID        string `json:"run_id,omitempty"`
	CallID       string `json:"call_id,omitempty"`
	Conversation string `json:"conversation,omitempty"`
}

// AppConfirm details a ui.confirm.request that an app caused
// (ConfirmParams.App): the instance, and the text (app_message) or the URL
// (app_open_link) the user is asked about. Text and URL are the app's:
// untrusted, escape them.
type AppConfirm struct {
	AppInstance
	Text string `json:"text,omitempty"`
	URL  string `json:"url,omitempty"`
	// DisplayForm is URL's form to show (app_open_link): show it, not a
	// host read from URL.
	DisplayForm
}

// AppReadResourceParams read a resource for an app (app.read_resource).
type AppReadResourceParams struct {
	AppID string `json:"app_id"`
	// URI is a resource of the app's server; empty means the app's own UI
	// resource (checked and cached: its MIME type must be AppMIMEType and
	// its size at most the runtime's bound).
	URI string `json:"uri,omitempty"`
}

// AppReadResourceResult answers app.read_resource, in the shape of MCP's
// resources/read result.
type AppReadResourceResult struct {
	Contents []AppResourceContents `json:"contents"`
}

// AppResourceContents is one content of a resource. For the app's UI
// resource it is the HTML document (Text, also when the server sent a
// blob) with its UI metadata.
type AppResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mime_type,omitempty"`
	Text     string `json:"text,omitempty"`
	// Blob is binary content (base64 in JSON).
	Blob []byte `json:"blob,omitempty"`
	// UI is the resource's _meta.ui: what the frame needs (CSP, sandbox
	// permissions, dedicated domain). Server-controlled.
	UI *AppUIMeta `json:"ui,omitempty"`
}

// AppUIMeta is a UI resource's _meta.ui. Hosts must not loosen it: a
// frame's CSP allows no origin the app did not declare.
type AppUIMeta struct {
	CSP         *AppCSP         `json:"csp,omitempty"`
	Permissions *AppPermissions `json:"permissions,omitempty"`
	// Domain is the dedicated origin the app asks for (host-dependent).
	Domain string `json:"domain,omitempty"`
	// PrefersBorder asks for a visible border and background.
	PrefersBorder *bool `json:"prefers_border,omitempty"`
}

// AppCSP lists the origins an app declares, by CSP directive. Empty means
// none: connect-src 'none', no external resources or frames, base-uri
// 'self'.
type AppCSP struct {
	ConnectDomains  []string `json:"connect_domains,omitempty"`
	ResourceDomains []string `json:"resource_domains,omitempty"`
	FrameDomains    []string `json:"frame_domains,omitempty"`
	BaseURIDomains  []string `json:"base_uri_domains,omitempty"`
}

// AppPermissions are the browser features an app asks for (the frame's
// allow attribute); a host may refuse them.
type AppPermissions struct {
	Camera         bool `json:"camera,omitempty"`
	Microphone     bool `json:"microphone,omitempty"`
	Geolocation    bool `json:"geolocation,omitempty"`
	ClipboardWrite bool `json:"clipboard_write,omitempty"`
}

// AppCallToolParams call a tool for an app (app.call_tool). The tool is
// the app's server's; Server, when set, must be that server.
type AppCallToolParams struct {
	AppID     string          `json:"app_id"`
	Server    string          `json:"server,omitempty"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// AppMessageParams add a message of the app to the conversation
// (app.message); only role "user" and text content are accepted.
type AppMessageParams struct {
	AppID   string    `json:"app_id"`
	Role    string    `json:"role,omitempty"`
	Content []Content `json:"content"`
}

// AppOpenLinkParams open a link for an app (app.open_link).
type AppOpenLinkParams struct {
	AppID string `json:"app_id"`
	URL   string `json:"url"`
}

// AppOpenLinkResult answers app.open_link after the user said yes.
type AppOpenLinkResult struct {
	Opened bool `json:"opened"`
}

// AppCloseParams forget an app instance (app.close).
type AppCloseParams struct {
	AppID string `json:"app_id"`
}

// AppServer is what the runtime does for an app: the app.* requests. The
// runtime's [Server] implements it too; [ServerHandler] dispatches the
// app.* methods to a Server that does.
type AppServer interface {
	AppReadResource(ctx context.Context, p *AppReadResourceParams) (*AppReadResourceResult, error)
	// AppCallTool answers like tool.call: the result and what allowed it.
	AppCallTool(ctx context.Context, p *AppCallToolParams) (*ToolCallResult, error)
	// AppMessage answers with the run the message started.
	AppMessage(ctx context.Context, p *AppMessageParams) (*RunStartResult, error)
	AppOpenLink(ctx context.Context, p *AppOpenLinkParams) (*AppOpenLinkResult, error)
	AppClose(ctx context.Context, p *AppCloseParams) (*Empty, error)
}

// addAppMethods adds the app.* methods to t when s implements AppServer.
func addAppMethods(t table, s Server) {
	a, ok := s.(AppServer)
	if !ok {
		return
	}
	t[MethodAppReadResource] = strict(MethodAppReadResource, a.AppReadResource)
	t[MethodAppCallTool] = strict(MethodAppCallTool, a.AppCallTool)
	t[MethodAppMessage] = strict(MethodAppMessage, a.AppMessage)
	t[MethodAppOpenLink] = strict(MethodAppOpenLink, a.AppOpenLink)
	t[MethodAppClose] = strict(MethodAppClose, a.AppClose)
}

// appCaller implements AppServer over a Conn.
type appCaller struct{ c *Conn }

// NewAppCaller returns an AppServer whose methods send app.* requests to
// the runtime over c: what a Go UI uses.
func NewAppCaller(c *Conn) AppServer { return appCaller{c} }

func (a appCaller) AppReadResource(ctx context.Context, p *AppReadResourceParams) (*AppReadResourceResult, error) {
	return call[AppReadResourceResult](ctx, a.c, MethodAppReadResource, p)
}
func (a appCaller) AppCallTool(ctx context.Context, p *AppCallToolParams) (*ToolCallResult, error) {
	return call[ToolCallResult](ctx, a.c, MethodAppCallTool, p)
}
func (a appCaller) AppMessage(ctx context.Context, p *AppMessageParams) (*RunStartResult, error) {
	return call[RunStartResult](ctx, a.c, MethodAppMessage, p)
}
func (a appCaller) AppOpenLink(ctx context.Context, p *AppOpenLinkParams) (*AppOpenLinkResult, error) {
	return call[AppOpenLinkResult](ctx, a.c, MethodAppOpenLink, p)
}
func (a appCaller) AppClose(ctx context.Context, p *AppCloseParams) (*Empty, error) {
	return call[Empty](ctx, a.c, MethodAppClose, p)
}

func appIDRequired(m string) *Error {
	return required(m, "app_id", "the id of an app instance (ToolCallInfo.app.id)")
}

func (p *AppReadResourceParams) validate(m string) *Error {
	if p.AppID == "" {
		return appIDRequired(m)
	}
	return nil
}

func (p *AppCallToolParams) validate(m string) *Error {
	if p.AppID == "" {
		return appIDRequired(m)
	}
	if p.Tool == "" {
		return required(m, "tool", "the tool's name on the app's server")
	}
	return nil
}

func (p *AppMessageParams) validate(m string) *Error {
	if p.AppID == "" {
		return appIDRequired(m)
	}
	if len(p.Content) == 0 {
		return required(m, "content", "the message's content blocks")
	}
	return nil
}

func (p *AppOpenLinkParams) validate(m string) *Error {
	if p.AppID == "" {
		return appIDRequired(m)
	}
	if p.URL == "" {
		return required(m, "url", "the link to open")
	}
	return nil
}

func (p *AppCloseParams) validate(m string) *Error {
	if p.AppID == "" {
		return appIDRequired(m)
	}
	return nil
}
