package protocol

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Requests from the UI to the runtime.
const (
	MethodInitialize   = "initialize"
	MethodMCPList      = "mcp.list"
	MethodMCPGet       = "mcp.get"
	MethodMCPReconnect = "mcp.reconnect"
	MethodMCPEnable    = "mcp.enable"
	MethodMCPDisable   = "mcp.disable"
	MethodMCPLogin     = "mcp.login"
	MethodMCPLogout    = "mcp.logout"
	MethodMCPApprove   = "mcp.approve"
	MethodToolsList    = "tools.list"
	MethodToolCall     = "tool.call"
	MethodRunStart     = "run.start"
	MethodRunCancel    = "run.cancel"
	MethodShutdown     = "shutdown"
)

// Requests from the runtime to the UI.
const (
	MethodUIConfirm = "ui.confirm.request"
	MethodUIPrompt  = "ui.prompt.request"
	MethodUIOpenURL = "ui.open_url.request"
	MethodUIElicit  = "ui.elicit.request"
)

// Notifications from the runtime to the UI.
const (
	MethodMCPStatus  = "mcp.status"
	MethodRunStatus  = "run.status"
	MethodAgentEvent = "agent.event"
	MethodLog        = "log"
	// MethodUIRequestCancelled tells the UI that the runtime no longer
	// wants the answer to one of its requests (RequestCancelledParams).
	MethodUIRequestCancelled = "ui.request.cancelled"
)

// Error codes. The JSON-RPC codes keep their standard meaning; the others
// are this protocol's and stable.
const (
	CodeParseError     = jsonrpc.CodeParseError     // the line is not JSON
	CodeInvalidRequest = jsonrpc.CodeInvalidRequest // not a JSON-RPC 2.0 request, or the line is too long
	CodeMethodNotFound = jsonrpc.CodeMethodNotFound // no such method
	CodeInvalidParams  = jsonrpc.CodeInvalidParams  // params missing, of the wrong type, or invalid
	CodeInternalError  = jsonrpc.CodeInternalError  // a bug in the runtime

	// CodeFailed: the request was valid but could not be carried out
	// (a server refused, a connection failed); the message says why.
	CodeFailed = -32000
	// CodeNotInitialized: a request other than initialize came first.
	CodeNotInitialized = -32001
	// CodeUnknownServer: no server with that id is configured.
	CodeUnknownServer = -32002
	// CodeNotReady: the server is not connected (see its state).
	CodeNotReady = -32003
	// CodeDenied: the permission gate refused a tool call.
	CodeDenied = -32004
	// CodeUnknownRun: no run with that id is in progress.
	CodeUnknownRun = -32005
	// CodeNoModel: run.start without a configured model.
	CodeNoModel = -32006
	// CodeShuttingDown: the runtime is shutting down.
	CodeShuttingDown = -32007
	// CodeCancelled: the request was cancelled (its run or the login was
	// cancelled, or the UI went away).
	CodeCancelled = -32008
)

// Error is a JSON-RPC error object: a code and a message for people.
type Error = jsonrpc.Error

// Errorf returns an *Error with code and a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
