package core

import "context"

// DecisionKind is the answer of a [PermissionHook].
type DecisionKind string

// Permission answers.
const (
	// DecisionAllow runs the call.
	DecisionAllow DecisionKind = "allow"
	// DecisionDeny does not run the call and ends the turn: no further call
	// of the step runs and the model is not called again.
	DecisionDeny DecisionKind = "deny"
	// DecisionDenyWithReason does not run the call; the model receives the
	// reason as the call's (error) result and the run goes on.
	DecisionDenyWithReason DecisionKind = "deny_with_reason"
)

// A PermissionDecision is what a [PermissionHook] answers.
type PermissionDecision struct {
	Kind DecisionKind `json:"kind"`
	// Reason is the user's reason for DecisionDenyWithReason; the model
	// sees it.
	Reason string `json:"reason,omitempty"`
}

// Allow returns a decision that runs the call.
func Allow() PermissionDecision { return PermissionDecision{Kind: DecisionAllow} }

// Deny returns a decision that refuses the call and ends the turn.
func Deny() PermissionDecision { return PermissionDecision{Kind: DecisionDeny} }

// DenyWithReason returns a decision that refuses the call and tells the
// model why.
func DenyWithReason(reason string) PermissionDecision {
	return PermissionDecision{Kind: DecisionDenyWithReason, Reason: reason}
}

// A PermissionRequest asks whether one tool call may run.
type PermissionRequest struct {
	// Step is the 1-based model call that asked for the call.
	Step int
	// Call is the call, with its arguments (a valid JSON object).
	Call ToolCall
	// Tool is the tool that would run.
	Tool Tool
}

// A PermissionHook decides whether a tool call may run. The run loop asks it
// for every call of a step, one call at a time and in the model's order,
// before any call of that step runs; unknown tools and invalid arguments
// never reach it. It should return promptly once ctx is done.
//
// A decision of an unknown kind counts as [DecisionDeny]. An error fails the
// run (no tool of that step runs), unless ctx is done, which cancels it.
// Without a hook every call is allowed.
type PermissionHook func(ctx context.Context, req PermissionRequest) (PermissionDecision, error)
