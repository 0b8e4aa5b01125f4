// Package core is the MCP-agnostic agent core: the tool contract, a tool
// registry, the run loop that drives a model provider through tool calls, and
// the permission hook that gates every call. It imports nothing MCP; MCP tools
// reach it through adapters built by the runtime.
//
// It must not import anything but the standard library and core/...: no MCP
// SDK and no runtime package.
package core

import (
	"context"
	"encoding/json"
)

// A Tool is something the model can call. Implementations must be safe for
// concurrent use: the run loop may call several tools at once.
type Tool interface {
	// Name is the public name the model sees; it matches ^[a-zA-Z0-9_-]{1,64}$.
	Name() string
	// Description tells the model what the tool does.
	Description() string
	// Schema is the JSON Schema (an object schema) of the arguments.
	Schema() json.RawMessage
	// Call runs the tool with the model's arguments (a JSON object). A
	// non-nil error means the call could not be made (transport failure,
	// timeout, cancellation); a tool that ran and failed returns a Result
	// with IsError set.
	Call(ctx context.Context, args json.RawMessage) (*Result, error)
}

// Content types of a [Content] block.
const (
	ContentText     = "text"
	ContentImage    = "image"
	ContentAudio    = "audio"
	ContentLink     = "resource_link"
	ContentResource = "resource"
)

// Content is one block of a tool result.
type Content struct {
	// Type is one of the Content* constants.
	Type string `json:"type"`
	// Text holds text content, or the text of an embedded text resource.
	Text string `json:"text,omitempty"`
	// Data holds the bytes of an image, audio clip or embedded blob resource.
	Data []byte `json:"data,omitempty"`
	// MIMEType describes Data (or the resource).
	MIMEType string `json:"mimeType,omitempty"`
	// URI names a linked or embedded resource.
	URI string `json:"uri,omitempty"`
	// Name and Title describe a linked resource.
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
}

// Result is what a tool call returns to the model.
type Result struct {
	Content []Content `json:"content"`
	// Structured is the tool's structured output, if any, kept verbatim.
	Structured json.RawMessage `json:"structured,omitempty"`
	// IsError reports that the tool ran and failed; Content says why.
	IsError bool `json:"isError,omitempty"`
}
