package core

// EventType says what an [Event] reports.
type EventType string

// Event types, in the order a run typically emits them.
const (
	// EventStatus reports a change of the run's status: StatusRunning
	// first, then exactly one final status as the run's last event.
	EventStatus EventType = "status"
	// EventTextDelta carries the next piece of the model's text in Text.
	EventTextDelta EventType = "text_delta"
	// EventToolCall reports a call the model asked for, in Call. Every
	// tool_call event is followed, eventually, by exactly one tool_result
	// event for the same call ID, also for calls that were never run.
	EventToolCall EventType = "tool_call"
	// EventPermission reports the permission hook being asked about Call
	// (Phase PermissionAsked) and its answer (Phase PermissionDecided,
	// with Decision). No permission events are emitted without a hook.
	EventPermission EventType = "permission"
	// EventToolResult carries the result of Call in Result.
	EventToolResult EventType = "tool_result"
	// EventFinal carries the model's final answer in Text.
	EventFinal EventType = "final"
	// EventError reports the error that makes a run fail, in Error.
	EventError EventType = "error"
)

// RunStatus is the state of a run.
type RunStatus string

// Run statuses. Every status but StatusRunning is final.
const (
	// StatusRunning: the run is in progress.
	StatusRunning RunStatus = "running"
	// StatusCompleted: the model gave a final answer, or a plain deny
	// ended the turn (see [RunResult.DeniedCall]).
	StatusCompleted RunStatus = "completed"
	// StatusCancelled: the run's context was cancelled.
	StatusCancelled RunStatus = "cancelled"
	// StatusFailed: the provider or the permission hook failed.
	StatusFailed RunStatus = "failed"
	// StatusStepLimit: the model still asked for tools after
	// [RunOptions.MaxSteps] model calls.
	StatusStepLimit RunStatus = "step_limit"
)

// PermissionPhase tells a permission event's request from its answer.
type PermissionPhase string

// Permission phases.
const (
	PermissionAsked   PermissionPhase = "asked"
	PermissionDecided PermissionPhase = "decided"
)

// An Event is one observable step of a run. Type says which fields are set.
type Event struct {
	Type EventType `json:"type"`
	// Step is the 1-based number of the model call the event belongs to:
	// 0 for the opening status event, and the last step for the closing
	// status and error events.
	Step int `json:"step"`
	// Text is the piece of text (EventTextDelta) or the whole final answer
	// (EventFinal).
	Text string `json:"text,omitempty"`
	// Call is the tool call of EventToolCall, EventPermission and
	// EventToolResult.
	Call *ToolCall `json:"call,omitempty"`
	// Phase and Decision describe an EventPermission; Decision is set in
	// the PermissionDecided phase.
	Phase    PermissionPhase     `json:"phase,omitempty"`
	Decision *PermissionDecision `json:"decision,omitempty"`
	// Result is the result of an EventToolResult.
	Result *Result `json:"result,omitempty"`
	// Error is the message of an EventError.
	Error string `json:"error,omitempty"`
	// Status is the status of an EventStatus.
	Status RunStatus `json:"status,omitempty"`
}
