package protocol

import "reflect"

// Direction says which side sends a method.
type Direction string

// Directions of [MethodSpec].
const (
	// UIToRuntime: the UI sends it, the runtime answers.
	UIToRuntime Direction = "ui_to_runtime"
	// RuntimeToUI: the runtime sends it, the UI answers (requests) or
	// only reads it (notifications).
	RuntimeToUI Direction = "runtime_to_ui"
	// BothWays: either side sends it (a notification).
	BothWays Direction = "both"
)

// MethodSpec describes one method of the protocol: the machine-readable
// table the schema (protocol/schema.json) and the TypeScript client are
// generated from.
type MethodSpec struct {
	// Name is the method's name on the wire (a Method* constant).
	Name string
	// Direction says who sends it.
	Direction Direction
	// Notification is true when it gets no answer.
	Notification bool
	// Params is the type of its params; Result the type of its result
	// (nil for a notification).
	Params, Result reflect.Type
	// Summary says in one line what it does.
	Summary string
}

func req[P, R any](name string, d Direction, summary string) MethodSpec {
	return MethodSpec{Name: name, Direction: d, Params: reflect.TypeFor[P](), Result: reflect.TypeFor[R](), Summary: summary}
}

func note[P any](name string, d Direction, summary string) MethodSpec {
	return MethodSpec{Name: name, Direction: d, Notification: true, Params: reflect.TypeFor[P](), Summary: summary}
}

// Methods is every method of the protocol, in the order PROTOCOL.md
// documents them. A new Method* constant needs its entry here (a test
// fails otherwise); the schema and the TypeScript client follow from it.
var Methods = []MethodSpec{
	req[InitializeParams, InitializeResult](MethodInitialize, UIToRuntime, "Opens the session; must be the first request."),
	req[Empty, MCPListResult](MethodMCPList, UIToRuntime, "The status of every configured server."),
	req[ServerParams, MCPGetResult](MethodMCPGet, UIToRuntime, "One server's status and detail."),
	req[ServerParams, ServerResult](MethodMCPReconnect, UIToRuntime, "Reconnects a server."),
	req[ServerParams, ServerResult](MethodMCPEnable, UIToRuntime, "Turns a server on."),
	req[ServerParams, ServerResult](MethodMCPDisable, UIToRuntime, "Turns a server off."),
	req[ApproveParams, ServerResult](MethodMCPApprove, UIToRuntime, "Answers the approval of a project-defined server."),
	req[LoginParams, ServerResult](MethodMCPLogin, UIToRuntime, "Logs in to a server (OAuth); answers when the login has ended."),
	req[LogoutParams, ServerResult](MethodMCPLogout, UIToRuntime, "Forgets a server's tokens."),
	req[PermissionsListParams, PermissionsListResult](MethodMCPPermissionsList, UIToRuntime, "The user's remembered \"always allow\" answers."),
	req[PermissionsRevokeParams, PermissionsRevokeResult](MethodMCPPermissionsRevoke, UIToRuntime, "Forgets remembered answers (one tool's, a server's, or all); the next call asks again."),
	req[ToolsListParams, ToolsListResult](MethodToolsList, UIToRuntime, "The tools as the model sees them."),
	req[ToolCallParams, ToolCallResult](MethodToolCall, UIToRuntime, "Calls one tool directly, through the permission gate."),
	req[RunStartParams, RunStartResult](MethodRunStart, UIToRuntime, "Starts an agent turn; answers at once with the run id."),
	req[RunCancelParams, Empty](MethodRunCancel, UIToRuntime, "Cancels a run."),
	req[ConversationParams, Empty](MethodConversationEnd, UIToRuntime, "Ends a conversation: forgets its history and removes the results kept for it."),
	req[Empty, Empty](MethodShutdown, UIToRuntime, "Shuts the runtime down; it exits after answering."),
	req[ConfirmParams, ConfirmResult](MethodUIConfirm, RuntimeToUI, "Asks the user a question (a tool call, a login, an app's request)."),
	req[PromptParams, PromptResult](MethodUIPrompt, RuntimeToUI, "Asks the user for a line of text (a pasted redirect URL)."),
	req[OpenURLParams, OpenURLResult](MethodUIOpenURL, RuntimeToUI, "Asks the UI to open a URL the user consented to."),
	req[ElicitParams, ElicitResult](MethodUIElicit, RuntimeToUI, "Passes a server's form elicitation to the user."),
	note[MCPStatusParams](MethodMCPStatus, RuntimeToUI, "A server's new status."),
	note[RunStatusParams](MethodRunStatus, RuntimeToUI, "A run's status: running, then one final status."),
	note[AgentEventParams](MethodAgentEvent, RuntimeToUI, "One event of a run."),
	note[ToolProgressParams](MethodToolProgress, RuntimeToUI, "A progress or task report about a direct tool.call."),
	note[RequestCancelledParams](MethodUIRequestCancelled, BothWays, "The runtime no longer wants the answer to one of its requests (the UI sends it too, to withdraw its tool.call)."),
	note[ElicitationCompleteParams](MethodElicitationComplete, RuntimeToUI, "A server finished a URL-mode elicitation the user opened."),
	note[LogParams](MethodLog, RuntimeToUI, "A log line for the UI."),
	req[AppReadResourceParams, AppReadResourceResult](MethodAppReadResource, UIToRuntime, "Reads an app's UI resource or another resource of its server."),
	req[AppCallToolParams, ToolCallResult](MethodAppCallTool, UIToRuntime, "Calls a tool of an app's server for the app."),
	req[AppMessageParams, RunStartResult](MethodAppMessage, UIToRuntime, "Adds an app's message to the conversation, after the user consented; starts a run."),
	req[AppOpenLinkParams, AppOpenLinkResult](MethodAppOpenLink, UIToRuntime, "Opens a link for an app, after the user consented."),
	req[AppCloseParams, Empty](MethodAppClose, UIToRuntime, "Forgets an app instance."),
	req[ListParams, PromptsListResult](MethodPromptsList, UIToRuntime, "Lists servers' prompts."),
	req[PromptsGetParams, PromptsGetResult](MethodPromptsGet, UIToRuntime, "Renders one prompt with its arguments; run.start takes its messages."),
	req[CompleteParams, CompleteResult](MethodPromptsComplete, UIToRuntime, "Completes an argument of a prompt as the user types."),
	req[ListParams, ResourcesListResult](MethodResourcesList, UIToRuntime, "Lists servers' resources."),
	req[ListParams, ResourceTemplatesListResult](MethodResourcesTemplatesList, UIToRuntime, "Lists servers' resource templates."),
	req[ResourceParams, ResourcesReadResult](MethodResourcesRead, UIToRuntime, "Reads one resource, bounded."),
	req[CompleteParams, CompleteResult](MethodResourcesComplete, UIToRuntime, "Completes a variable of a resource template."),
	req[ResourceParams, Empty](MethodResourcesSubscribe, UIToRuntime, "Asks a server to report changes of a resource (resources.updated)."),
	req[ResourceParams, Empty](MethodResourcesUnsubscribe, UIToRuntime, "Ends a resource subscription."),
	note[ResourceUpdatedParams](MethodResourcesUpdated, RuntimeToUI, "A subscribed resource changed; read it again to see how."),
	req[RegistrySearchParams, RegistrySearchResult](MethodRegistrySearch, UIToRuntime, "Searches the MCP Registry."),
	req[RegistryGetParams, RegistryGetResult](MethodRegistryGet, UIToRuntime, "One server of the MCP Registry."),
	req[RegistryAddParams, RegistryAddResult](MethodRegistryAdd, UIToRuntime, "Adds a server of the MCP Registry to the configuration."),
}

// ErrorSpec describes one error code of the protocol.
type ErrorSpec struct {
	Code int64
	// Kind is the word ErrorData.Kind carries for Code.
	Kind string
	// Meaning says when the runtime answers it.
	Meaning string
}

// Errors is every error code the runtime answers; the data of each is an
// [ErrorData] whose kind is the code's Kind.
var Errors = []ErrorSpec{
	{CodeParseError, KindParseError, "The line is not JSON."},
	{CodeInvalidRequest, KindInvalidRequest, "Not a JSON-RPC 2.0 request, or the line is too long."},
	{CodeMethodNotFound, KindMethodNotFound, "No such method."},
	{CodeInvalidParams, KindInvalidParams, "Params missing, of the wrong type, or invalid; data.field names the field."},
	{CodeInternalError, KindInternalError, "A bug in the runtime."},
	{CodeFailed, KindFailed, "The request was valid but could not be carried out; the message says why."},
	{CodeNotInitialized, KindNotInitialized, "A request other than initialize came first."},
	{CodeUnknownServer, KindUnknownServer, "No server with that id is configured."},
	{CodeNotReady, KindNotReady, "The server is not connected; data.status is its status."},
	{CodeDenied, KindDenied, "The permission gate refused a tool call; data.decided_by says what."},
	{CodeUnknownRun, KindUnknownRun, "No run with that id is in progress."},
	{CodeNoModel, KindNoModel, "run.start without a configured model."},
	{CodeShuttingDown, KindShuttingDown, "The runtime is shutting down."},
	{CodeCancelled, KindCancelled, "The request was cancelled (its run, the login, or the UI withdrew it)."},
	{CodeUnknownApp, KindUnknownApp, "No app instance with that id."},
	{CodeUnsupportedVersion, KindUnsupportedVersion, "initialize named only protocol versions outside the runtime's window; data.protocol_version is the newest it speaks, data.supported_versions all of them."},
}
