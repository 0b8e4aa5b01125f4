package protocol

import (
	"encoding/json"
	"time"
)

// Empty is the params or result of a method that carries nothing.
type Empty struct{}

// Implementation names a program and its version.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// UICapabilities say what the UI can do for the runtime. The runtime never
// sends a request the UI did not declare: without confirm, tool calls follow
// the rules-only policy (allow rules, trusted servers and remembered
// answers apply; what would need a confirm is denied) and logins need the
// terminal or a pasted URL; without prompt, paste-back is unavailable; without open_url
// the runtime opens the system browser itself after the UI's consent; without
// elicit, servers' elicitation requests are declined.
type UICapabilities struct {
	Confirm bool `json:"confirm,omitempty"`
	Prompt  bool `json:"prompt,omitempty"`
	OpenURL bool `json:"open_url,omitempty"`
	Elicit  bool `json:"elicit,omitempty"`
	// MCPPrompts: the UI offers servers' prompts to the user
	// (prompts.list, prompts.get). The model's prompt tools then leave
	// them out, unless a server's config says "prompts_to_model": true.
	MCPPrompts bool `json:"mcp_prompts,omitempty"`
}

// RuntimeCapabilities say what the runtime offers the UI.
type RuntimeCapabilities struct {
	// Runs is true when a model is configured, so run.start works.
	Runs bool `json:"runs"`
	// Model names the configured model ("scripted" for the demo script).
	Model string `json:"model,omitempty"`
	// Login is true: mcp.login and mcp.logout are available.
	Login bool `json:"login"`
	// Apps is true: the runtime speaks the MCP Apps extension with servers
	// and answers the app.* methods (see apps.go).
	Apps bool `json:"apps,omitempty"`
	// Primitives is true: the runtime answers the prompts.* and
	// resources.* methods and run.start takes messages and attachments.
	Primitives bool `json:"primitives,omitempty"`
}

// InitializeParams open the session. It must be the first request.
type InitializeParams struct {
	// ProtocolVersion is the version the UI speaks.
	ProtocolVersion string `json:"protocol_version"`
	// ProtocolVersions, when set, are all the versions the UI speaks: the
	// runtime answers with the newest it speaks too ([Negotiate]).
	ProtocolVersions []string       `json:"protocol_versions,omitempty"`
	ClientInfo       Implementation `json:"client_info"`
	Capabilities     UICapabilities `json:"capabilities"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	// ProtocolVersion is the version of this session, chosen by
	// [Negotiate]: the runtime serves the UI that version exactly.
	ProtocolVersion string              `json:"protocol_version"`
	ServerInfo      Implementation      `json:"server_info"`
	Capabilities    RuntimeCapabilities `json:"capabilities"`
	// Servers is the status of every configured server at the time of the
	// answer; mcp.status notifications follow every change.
	Servers []ServerStatus `json:"servers"`
	// ConfigFiles are the configuration files the runtime read.
	ConfigFiles []string `json:"config_files,omitempty"`
	// Problems lists configuration problems (each names file, server and
	// field), also for servers that therefore did not start.
	Problems []string `json:"problems,omitempty"`
}

// Server states.
const (
	StateDisabled     = "disabled"
	StateConnecting   = "connecting"
	StateAuthRequired = "auth_required"
	StateReady        = "ready"
	StateError        = "error"
	// StateApprovalRequired: a project file defines (or redefines) the
	// server and the user has not approved this definition; it does not
	// start until mcp.approve (see ServerStatus.Approval).
	StateApprovalRequired = "approval_required"
	// StateBlockedByPolicy: the organization's managed policy forbids
	// the server; it does not start (see ServerStatus.Policy).
	StateBlockedByPolicy = "blocked_by_policy"
	// StateIdle: a server that starts on first use is not running; its
	// kept catalog is offered (Cached) and its next use starts it.
	StateIdle = "idle"
)

// PolicyStatus names the rule of the managed policy that blocks a server.
type PolicyStatus struct {
	// File is the policy file.
	File string `json:"file"`
	// Rule is the rule as the file writes it, such as
	// `deny[0] {"url":"http://127.0.0.1:*/blocked*"}`, `"user_servers":
	// "none"` or "unusable policy file".
	Rule string `json:"rule"`
	// Reason says why the rule applies to this server.
	Reason string `json:"reason"`
}

// ServerStatus is a snapshot of one MCP server. It never holds a secret.
type ServerStatus struct {
	ID string `json:"id"`
	// Transport is http, sse or stdio.
	Transport string `json:"transport"`
	// Source is the config layer the server comes from: global, project,
	// env, or managed (the organization's policy provides it: it cannot be
	// removed or disabled).
	Source  string `json:"source,omitempty"`
	Enabled bool   `json:"enabled"`
	// State is one of the State* constants.
	State string `json:"state" renamed:"status"`
	// Status is State under the name the protocol uses for a lifecycle
	// word everywhere (run.status, tasks, the registry): the runtime sends
	// both, and state goes away at the next protocol version. Required, as
	// state is, so a UI can move to it now.
	Status string `json:"status"`
	// Tools counts the server's tools after include/exclude filters.
	Tools int `json:"tools"`
	// Cached reports that Tools, ServerName and ServerVersion come from
	// the catalog kept from the server's last run: it is not running
	// (state idle, connecting, or error after a failed start on use).
	Cached          bool   `json:"cached,omitempty"`
	ProtocolVersion string `json:"protocol_version,omitempty"`
	ServerName      string `json:"server_name,omitempty"`
	ServerVersion   string `json:"server_version,omitempty"`
	SessionID       string `json:"session_id,omitempty"`
	LastError       string `json:"last_error,omitempty"`
	// LastConnectedAt is the time of the last successful handshake.
	LastConnectedAt time.Time `json:"last_connected_at,omitzero"`
	// NextRetryAt is when the next connect is due after a failure.
	NextRetryAt time.Time `json:"next_retry_at,omitzero"`
	// Attempts counts the failed connects in a row (a session that ran
	// fine for the backoff's cap resets it); with NextRetryAt it says how
	// far a crash-looping server's backoff has gone.
	Attempts int `json:"attempts,omitempty"`
	// Auth describes the server's authorization, for OAuth servers.
	Auth *AuthStatus `json:"auth,omitempty"`
	// Approval is set for servers a project file defines.
	Approval *ApprovalStatus `json:"approval,omitempty"`
	// Policy is set when State is blocked_by_policy: the rule that
	// blocks the server.
	Policy *PolicyStatus `json:"policy,omitempty"`
	// Warnings are problems that did not stop the server, such as
	// "trust": true ignored in a project file.
	Warnings []string `json:"warnings,omitempty"`
	// Sandbox is a stdio server's confinement; absent for http and sse
	// servers.
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// SandboxStatus says whether and how a stdio server runs confined. The
// summary may hold paths a project file grants: escape it.
type SandboxStatus struct {
	// State is "active", "unavailable" (the OS cannot confine it: the
	// server runs anyway unless its policy says required), "off"
	// ("sandbox": false in the global config), "not sandboxed" (Windows:
	// environment allowlist only) or "pending" (not started yet).
	State string `json:"state" renamed:"status"`
	// Status is State under its new name (see ServerStatus.Status);
	// required, as state is.
	Status string `json:"status"`
	// Detail is the mechanism ("Landlock ABI 7", "Seatbelt via
	// sandbox-exec") or why there is none.
	Detail string `json:"detail,omitempty"`
	// Summary is the effective policy in one line: reads, writes, network.
	Summary string `json:"summary,omitempty"`
	// Protections say, one line each, which protection this machine
	// enforces for the server and which it does not ("UNIX sockets:
	// enforced (seccomp refuses socket(AF_UNIX))", "files that run code
	// later: not protected inside its writable places: ..."). Added
	// within 2026-11-27: older UIs ignore it.
	Protections []string `json:"protections,omitempty"`
}

// ApprovalStatus describes the approval of a server that a project file
// defines: a cloned repository's config may name any command, so such a
// server runs only once the user approved exactly this definition.
type ApprovalStatus struct {
	// Decision is "unknown" (never asked), "approved", "denied" or
	// "changed" (an earlier definition was answered; this one was not).
	Decision string `json:"decision"`
	// File is the project config file that defines the server.
	File string `json:"file"`
	// Digest is the sha256 of the definition the answer is pinned to.
	Digest string `json:"digest"`
	// Fields are the definition as "name: value" lines (transport,
	// command, args, cwd, env, url, header names), the file's literal text
	// (${VAR} unexpanded). Untrusted text: escape it before display.
	Fields []string `json:"fields"`
}

// AuthStatus describes a server's OAuth state. It never holds a token.
type AuthStatus struct {
	// LoggedIn reports a usable token (or refresh token).
	LoggedIn bool `json:"logged_in"`
	// ValidUntil is when the current access token expires.
	ValidUntil time.Time `json:"valid_until,omitzero"`
	// Detail is a sentence for people: "not logged in", "token valid until
	// …", "refresh failed: …", "resource mismatch: …", "registration
	// rejected: …".
	Detail string `json:"detail,omitempty"`
	// Storage names where tokens are kept (keyring, file path, memory),
	// with a warning when the keyring was unavailable.
	Storage string `json:"storage,omitempty"`
}

// MCPListResult answers mcp.list (params: Empty) at once, from a snapshot.
type MCPListResult struct {
	Servers []ServerStatus `json:"servers"`
}

// ServerResult is the server's status after the request.
type ServerResult struct {
	Server ServerStatus `json:"server"`
}

// ServerDetail is what mcp.get adds to a status.
type ServerDetail struct {
	ServerStatus
	// Stderr is the kept tail of a stdio server's stderr.
	Stderr string `json:"stderr,omitempty"`
	// ServerLog is the kept tail of the log messages the server sent
	// (MCP notifications/message, which the host never asks for), one
	// line each, stripped of controls: the server's own words.
	ServerLog string `json:"server_log,omitempty"`
	// Instructions are the server's instructions from its initialize
	// answer as the model gets them: stripped of controls (newlines
	// kept) and cut at 2 KB with a note. Absent when it sent none. The
	// server's own words: escape them before display.
	Instructions string `json:"instructions,omitempty"`
	// InstructionsOff reports that the server's config leaves its
	// instructions out of the model's context ("instructions": false).
	InstructionsOff bool `json:"instructions_off,omitempty"`
	// URL is an http/sse server's endpoint; Command a stdio server's
	// command line (argument values that come from ${VAR} are not shown).
	URL string `json:"url,omitempty"`
	// DisplayURL is URL as a person is shown it: its display form (see
	// [DisplayForm]), or, for a URL the display check refuses, a quote of
	// it marked as refused. Show it, not URL.
	DisplayURL string `json:"display_url,omitempty"`
	Command    string `json:"command,omitempty"`
	// Environment names the environment variables a stdio server gets
	// (never their values); absent for http and sse servers.
	Environment *EnvironmentNames `json:"environment,omitempty"`
	// Tools lists the server's tools.
	ToolList []ToolInfo `json:"tool_list"`
}

// MCPGetResult answers mcp.get.
type MCPGetResult struct {
	Server ServerDetail `json:"server"`
}

// ToolsListParams select the tools of one server, or of all when Server is
// empty.
type ToolsListParams struct {
	Server string `json:"server,omitempty"`
}

// ToolInfo describes one tool as the model sees it.
type ToolInfo struct {
	// PublicName is the name the model calls: mcp_<server>_<tool>_<hash8>.
	PublicName string `json:"public_name"`
	// Server and Tool are the origin.
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// Annotations are the server's hints, untrusted.
	Annotations *Annotations `json:"annotations,omitempty"`
	// App is set when the tool has an MCP App (a ui:// resource).
	App *ToolApp `json:"app,omitempty"`
}

// Annotations are a tool's hints as its server claims them: never facts.
type Annotations struct {
	Untrusted       bool  `json:"untrusted"`
	ReadOnlyHint    bool  `json:"read_only_hint,omitempty"`
	DestructiveHint *bool `json:"destructive_hint,omitempty"`
	IdempotentHint  bool  `json:"idempotent_hint,omitempty"`
	OpenWorldHint   *bool `json:"open_world_hint,omitempty"`
}

// ToolsListResult answers tools.list.
type ToolsListResult struct {
	Tools []ToolInfo `json:"tools"`
	// Problems lists tools that were skipped or renamed.
	Problems []string `json:"problems,omitempty"`
	// ToolSearch is set when a run started now would be in search mode
	// (see RunStatusParams.ToolSearch); Tools still lists every tool.
	ToolSearch *ToolSearchInfo `json:"tool_search,omitempty"`
}

// ToolCallParams call one tool directly (tool.call); the call passes the
// permission gate like a model's call.
type ToolCallParams struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// WaitReadyMS is how long a call to a server that is still
	// connecting waits for it to be ready (at most MaxWaitReadyMS) before
	// failing CodeNotReady: unset (0) is DefaultWaitReadyMS, a negative
	// value fails at once.
	WaitReadyMS int64 `json:"wait_ready_ms,omitempty"`
}

// MaxWaitReadyMS bounds ToolCallParams.WaitReadyMS: two minutes.
const MaxWaitReadyMS = 120_000

// DefaultWaitReadyMS is how long tool.call waits for a connecting server
// when the UI names no wait: one minute, the default connect timeout.
const DefaultWaitReadyMS = 60_000

// ToolCallResult answers tool.call.
type ToolCallResult struct {
	Result ToolResult `json:"result"`
	// DecidedBy says what allowed the call: "allow rule", "user", …
	DecidedBy string `json:"decided_by"`
	// App is the app instance of the call, when the tool has an app.
	App *AppInstance `json:"app,omitempty"`
}

// ToolResult is a tool's result.
type ToolResult struct {
	Content    []Content       `json:"content"`
	Structured json.RawMessage `json:"structured,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
}

// Content is one block of a tool result: text, image, audio,
// resource_link or resource.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     []byte `json:"data,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
	URI      string `json:"uri,omitempty"`
	Name     string `json:"name,omitempty"`
	Title    string `json:"title,omitempty"`
}

// RunStartParams start an agent turn (run.start). The answer comes at once
// with the run id; the run reports through agent.event and run.status.
type RunStartParams struct {
	// Prompt is the user's message. It may be empty when Messages or
	// Attach are given.
	Prompt string `json:"prompt"`
	// Messages come before Prompt in the conversation: the messages a
	// prompt returned (prompts.get), role "user" or "assistant". The turn
	// ends with a user message: the last user messages and Prompt form
	// the user's turn.
	Messages []PromptMessage `json:"messages,omitempty"`
	// Attach are resources the runtime reads (bounded as resources.read)
	// and adds to the user's message as embedded content.
	Attach []ResourceParams `json:"attach,omitempty"`
	// Conversation continues an earlier conversation (the id a previous
	// run.start returned); empty starts a new one.
	Conversation string `json:"conversation,omitempty"`
}

// RunStartResult answers run.start.
type RunStartResult struct {
	RunID        string `json:"run_id"`
	Conversation string `json:"conversation"`
}

// RunCancelParams cancel a run (run.cancel). In-flight tool calls are
// cancelled on their servers (notifications/cancelled) and the run ends with
// status cancelled.
type RunCancelParams struct {
	RunID string `json:"run_id"`
}

// Run statuses.
const (
	RunRunning   = "running"
	RunCompleted = "completed"
	RunCancelled = "cancelled"
	RunFailed    = "failed"
	RunStepLimit = "step_limit"
)

// RunStatusParams report a run's status (notification run.status): running
// first, then exactly one final status.
type RunStatusParams struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
	// Text is the final answer of a completed run.
	Text string `json:"text,omitempty"`
	// Error says why a run failed.
	Error string `json:"error,omitempty"`
	Steps int    `json:"steps,omitempty"`
	// ToolSearch, on the running status, says that the run is in search
	// mode: the catalog exceeds the tool-search budget, and the model is
	// offered a search tool instead of every tool.
	ToolSearch *ToolSearchInfo `json:"tool_search,omitempty"`
}

// Agent event types.
const (
	EventTextDelta  = "text_delta"
	EventToolCall   = "tool_call"
	EventPermission = "permission"
	EventToolResult = "tool_result"
	EventFinal      = "final"
	EventError      = "error"
)

// AgentEventParams carry one event of a run (notification agent.event).
type AgentEventParams struct {
	RunID string `json:"run_id"`
	// Type is one of the Event* constants.
	Type string `json:"type"`
	Step int    `json:"step"`
	// Text is the piece of text (text_delta) or the final answer (final).
	Text string `json:"text,omitempty"`
	// Call is the tool call of tool_call, permission and tool_result.
	Call *ToolCallInfo `json:"call,omitempty"`
	// Phase (asked or decided) and Decision (allow, deny,
	// deny_with_reason) describe a permission event.
	Phase    string `json:"phase,omitempty"`
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Result is the result of tool_result.
	Result *ToolResult `json:"result,omitempty"`
	// Error is the message of an error event.
	Error string `json:"error,omitempty"`
	// DecidedBy, on a permission event with phase decided, says what
	// decided: "deny rule", "allow rule", "trusted server", "read-only
	// claim (auto_allow)", "remembered answer", "user", "non-interactive
	// policy", "timeout".
	DecidedBy string `json:"decided_by,omitempty"`
	// Status is the run's final status (Run* constants) on the final
	// event, which every run sends exactly once, as its last event.
	Status string `json:"status,omitempty"`
	// Progress is the server's report of a progress event (EventProgress).
	Progress *Progress `json:"progress,omitempty"`
	// Task is the new state of a task event (EventTask).
	Task *TaskState `json:"task,omitempty"`
}

// ToolCallInfo is a model's tool call with its origin.
type ToolCallInfo struct {
	ID         string          `json:"id"`
	PublicName string          `json:"public_name"`
	Server     string          `json:"server,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	// Unknown reports a name that no tool of the run has: the call is not
	// made (its tool_result says why). Server and Tool then name the tool
	// the model most likely meant, when exactly one tool has that name on
	// its server (or the name is "server/tool"); otherwise they are empty.
	Unknown bool `json:"unknown,omitempty"`
	// App is the call's app instance, when the tool has an MCP App: the
	// same on the call's tool_call, permission and tool_result events.
	App *AppInstance `json:"app,omitempty"`
}

// MCPStatusParams report a server's new status (notification mcp.status).
type MCPStatusParams struct {
	Server ServerStatus `json:"server"`
	// Removed reports that the server left the configuration.
	Removed bool `json:"removed,omitempty"`
}

// LogParams carry a log line for the UI (notification log).
type LogParams struct {
	// Level is debug, info, warn or error.
	Level   string `json:"level"`
	Message string `json:"message"`
	Server  string `json:"server,omitempty"`
}
