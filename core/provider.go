package core

import (
	"context"
	"encoding/json"
)

// Role is the author of a [Message].
type Role string

// Message roles, as in chat-completion APIs.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// A Message is one entry of a conversation.
type Message struct {
	Role Role `json:"role"`
	// Content is the text of the message. For a RoleTool message it is the
	// tool result rendered as text (see [RenderResult]), which is what
	// text-only model APIs receive.
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a RoleTool message to the [ToolCall] it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ToolName is the name of the tool a RoleTool message answers.
	ToolName string `json:"tool_name,omitempty"`
	// Result is the structured tool result of a RoleTool message, for
	// providers that can send more than text (images, for instance). On a
	// RoleUser message it holds the message's parts (images, embedded
	// resources a prompt returned or the user attached), of which Content
	// is the text rendering.
	Result *Result `json:"result,omitempty"`
}

// A ToolCall is the model's request to call one tool.
type ToolCall struct {
	// ID is the provider's identifier of the call; results refer to it.
	ID string `json:"id"`
	// Name is the public name of the tool.
	Name string `json:"name"`
	// Args are the arguments as the model sent them. They are meant to be a
	// JSON object but are not validated by the provider: the run loop turns
	// invalid arguments into an error result for the model.
	Args json.RawMessage `json:"args"`
}

// ToolDef is a tool as a provider presents it to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// DefOf returns the definition of t that providers send to the model.
func DefOf(t Tool) ToolDef {
	return ToolDef{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}
}

// A Request is one model call: the conversation so far and the tools the
// model may call.
type Request struct {
	Messages []Message
	Tools    []ToolDef
}

// Finish reasons a [Response] may report. Providers pass through reasons
// they do not know.
const (
	FinishStop          = "stop"
	FinishToolCalls     = "tool_calls"
	FinishLength        = "length"
	FinishContentFilter = "content_filter"
)

// A Response is a complete model answer.
type Response struct {
	// Text is the whole text the model produced (the concatenation of the
	// streamed deltas).
	Text string
	// ToolCalls are the calls the model asks for, in the model's order.
	ToolCalls []ToolCall
	// FinishReason is why the model stopped, one of the Finish* constants
	// or a provider-specific value; empty when the provider gave none.
	FinishReason string
}

// A Delta is an incremental piece of a streamed response.
type Delta struct {
	// Text is the next piece of the answer's text.
	Text string
}

// A Provider is a model API. Stream sends req and calls onDelta (which may be
// nil) for every piece of text as it arrives, from the calling goroutine,
// before returning the complete response. It must return promptly with an
// error once ctx is done, and must neither modify req nor keep it after
// returning: the run loop reuses its slices.
type Provider interface {
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error)
}
