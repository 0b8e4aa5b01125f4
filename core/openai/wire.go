package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-host/mcp-host/core"
)

// Wire types of the chat completions API, limited to what this provider
// sends and reads.

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []wireMessage `json:"messages"`
	Tools       []wireTool    `json:"tools,omitempty"`
	Stream      bool          `json:"stream"`
	Temperature *float64      `json:"temperature,omitempty"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is null for an assistant message that only calls tools.
	Content    *string        `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// Parts, when set, replace Content on the wire: a user message with
	// images or audio (parts.go). Never read from an answer.
	Parts []wirePart `json:"-"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name string `json:"name,omitempty"`
	// Arguments is a JSON string holding JSON text. Some servers send a
	// JSON object instead; see argText.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type wireTool struct {
	Type     string      `json:"type"`
	Function wireToolDef `json:"function"`
}

type wireToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// chunk is one streamed event, or (with Message set) a whole answer.
type chunk struct {
	Choices []struct {
		Index        int          `json:"index"`
		Delta        *wireMessage `json:"delta"`
		Message      *wireMessage `json:"message"`
		FinishReason *string      `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
}

func (p *Provider) wireRequest(req core.Request) chatRequest {
	out := chatRequest{Model: p.model, Stream: !p.noStream, Temperature: p.temp}
	for _, m := range req.Messages {
		wm := wireMessage{Role: string(m.Role)}
		content := m.Content
		if m.Role == core.RoleTool && content == "" && m.Result != nil {
			content = core.RenderResult(m.Result)
		}
		if content != "" || len(m.ToolCalls) == 0 {
			wm.Content = &content
		}
		for _, c := range m.ToolCalls {
			args := strings.TrimSpace(string(c.Args))
			if args == "" {
				args = "{}"
			}
			enc, _ := json.Marshal(args) // marshaling a string cannot fail
			wm.ToolCalls = append(wm.ToolCalls, wireToolCall{ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: enc}})
		}
		if m.Role == core.RoleTool {
			wm.ToolCallID = m.ToolCallID
		}
		wm.Parts = userParts(m, content)
		out.Messages = append(out.Messages, wm)
	}
	for _, d := range req.Tools {
		params := d.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, wireTool{Type: "function", Function: wireToolDef{Name: d.Name, Description: d.Description, Parameters: params}})
	}
	return out
}

// argText returns the text of a streamed piece of arguments: the content of
// a JSON string, or the raw JSON of anything else (some servers send the
// arguments as an object).
func argText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// apiErrorMessage extracts a human-readable message from an error body in
// any of the shapes these servers use:
//
//	{"error": {"message": "...", "type": "...", "code": "..."}}   OpenAI, LM Studio
//	{"error": "..."}                                              Ollama
//	{"object": "error", "message": "..."}                         vLLM
//	{"detail": "..."}                                             FastAPI-based servers
func apiErrorMessage(body []byte) (msg, typ, code string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", "", ""
	}
	if len(v.Error) > 0 {
		if m, t, c, ok := errorObject(v.Error); ok {
			return m, t, c
		}
	}
	if v.Message != "" {
		return v.Message, "", ""
	}
	if len(v.Detail) > 0 {
		var s string
		if json.Unmarshal(v.Detail, &s) == nil {
			return s, "", ""
		}
		return string(v.Detail), "", ""
	}
	return "", "", ""
}

// errorObject reads the value of an "error" field: an object with a message
// or a plain string.
func errorObject(raw json.RawMessage) (msg, typ, code string, ok bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, "", "", s != ""
	}
	var o struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &o) != nil || (o.Message == "" && o.Type == "") {
		return "", "", "", false
	}
	code = argText(o.Code)
	return o.Message, o.Type, code, true
}

// HTTPError is a non-2xx answer from the server.
type HTTPError struct {
	// URL is the endpoint, without user info.
	URL string
	// StatusCode and Status are the HTTP status.
	StatusCode int
	Status     string
	// Message, Type and Code come from the server's error body; Message is
	// the body itself (shortened) when it has no recognized shape. Any
	// occurrence of the API key is replaced by "[redacted]".
	Message string
	Type    string
	Code    string
}

func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "openai: POST %s: %s", e.URL, e.Status)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	var extra []string
	if e.Type != "" {
		extra = append(extra, "type "+e.Type)
	}
	if e.Code != "" {
		extra = append(extra, "code "+e.Code)
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	return b.String()
}
