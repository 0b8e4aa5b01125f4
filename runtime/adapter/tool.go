package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Default limits of [Options].
const (
	// DefaultMaxSchemaBytes is the largest input schema passed to the model.
	DefaultMaxSchemaBytes = 64 << 10
	// DefaultMaxOutputTokens is the output budget of one result, in
	// estimated model tokens: Claude Code's default MCP output limit
	// (MAX_MCP_OUTPUT_TOKENS), so that servers built for it fit.
	DefaultMaxOutputTokens = 25_000
	// BytesPerToken estimates the tokens of a result from its bytes, the
	// usual rough figure for English text and JSON.
	BytesPerToken = 4
	// DefaultMaxOutputBytes is the most result bytes passed to the model:
	// the default token budget as estimated bytes.
	DefaultMaxOutputBytes = DefaultMaxOutputTokens * BytesPerToken
	// MaxOutputCeilingBytes bounds the bytes of a budget set in tokens
	// (see [Options.MaxOutputTokens]).
	MaxOutputCeilingBytes = 1 << 20
)

// A Caller calls a tool on one MCP server; a session satisfies it. It owns
// timeouts and cancellation: when ctx ends or the server goes away, CallTool
// must return an error rather than block.
type Caller interface {
	CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error)
}

// Options tune an adapter. The zero value uses the defaults.
type Options struct {
	// MaxSchemaBytes limits the size of a tool's input schema; a larger
	// schema is replaced by the permissive fallback. Default
	// DefaultMaxSchemaBytes.
	MaxSchemaBytes int
	// MaxOutputBytes limits the bytes of a result handed to the model; the
	// rest is cut with a note. Default DefaultMaxOutputBytes.
	MaxOutputBytes int
	// MaxOutputTokens, when set, is the output budget in estimated model
	// tokens ([BytesPerToken] bytes each); MaxOutputBytes (default
	// [MaxOutputCeilingBytes]) is then its byte ceiling.
	MaxOutputTokens int
}

func (o Options) withDefaults() Options {
	if o.MaxSchemaBytes <= 0 {
		o.MaxSchemaBytes = DefaultMaxSchemaBytes
	}
	o.MaxOutputBytes = o.OutputBudget()
	return o
}

// OutputBudget is the most result bytes handed to the model: the token
// budget as estimated bytes, within the byte ceiling, or MaxOutputBytes
// alone (default [DefaultMaxOutputBytes]) when no token budget is set.
func (o Options) OutputBudget() int {
	switch {
	case o.MaxOutputTokens > 0:
		ceil := o.MaxOutputBytes
		if ceil <= 0 {
			ceil = MaxOutputCeilingBytes
		}
		return min(o.MaxOutputTokens*BytesPerToken, ceil)
	case o.MaxOutputBytes > 0:
		return o.MaxOutputBytes
	}
	return DefaultMaxOutputBytes
}

// A Tool is one MCP tool of one server presented as a [core.Tool]. It is
// immutable and safe for concurrent use.
type Tool struct {
	server     string
	def        *mcp.Tool
	name       string
	desc       string
	schema     json.RawMessage
	schemaNote string
	caller     Caller
	maxOut     int
}

var _ core.Tool = (*Tool)(nil)

// New adapts the tool def of server, called through caller. It fails only
// when an argument is missing; an unusable schema is replaced (see
// [Tool.SchemaNote]).
func New(server string, def *mcp.Tool, caller Caller, opts Options) (*Tool, error) {
	t := new(Tool)
	if err := t.init(server, def, caller, opts.withDefaults(), nil); err != nil {
		return nil, err
	}
	return t, nil
}

// init fills t. enc, when not nil, is a reusable schema encoder.
func (t *Tool) init(server string, def *mcp.Tool, caller Caller, opts Options, enc *schemaEncoder) error {
	switch {
	case server == "":
		return errors.New("adapter: empty server id")
	case def == nil:
		return fmt.Errorf("adapter: server %q: nil tool", server)
	case def.Name == "":
		return fmt.Errorf("adapter: server %q: tool without a name", server)
	case caller == nil:
		return fmt.Errorf("adapter: server %q tool %q: nil caller", server, def.Name)
	case !SafeName(def.Name):
		return fmt.Errorf("adapter: server %q: tool %q has control or invisible characters in its name", server, def.Name)
	}
	if enc == nil {
		enc = new(schemaEncoder)
	}
	t.server = server
	t.def = def
	t.name = PublicName(server, def.Name)
	t.desc = description(server, def)
	t.schema, t.schemaNote = enc.schema(def.InputSchema, opts.MaxSchemaBytes)
	t.caller = caller
	t.maxOut = opts.MaxOutputBytes
	return nil
}

// SafeName reports whether a tool name can be shown and called as it is:
// valid UTF-8 without controls, escape sequences, tabs, newlines, bidi or
// invisible format characters (see [termsafe]). Tools with other names are
// not adapted: the model would call one name while the user reads another.
func SafeName(name string) bool { return termsafe.Strip(name) == name }

// description is "[MCP server/tool] " followed by the tool's description,
// or its title when it has none, stripped for terminals (newlines kept)
// and never cut: the model reads it, and hidden characters (tag
// characters, bidi overrides) are a way to tell the model what the user
// cannot see.
func description(server string, def *mcp.Tool) string {
	text := def.Description
	if text == "" {
		text = def.Title
	}
	if text == "" && def.Annotations != nil {
		text = def.Annotations.Title
	}
	prefix := "[MCP " + termsafe.Strip(server) + "/" + def.Name + "]"
	if text == "" {
		return prefix
	}
	return prefix + " " + termsafe.Sanitize(text, termsafe.Options{MultiLine: true, Max: -1})
}

// Name returns the public name, mcp_<server>_<tool>_<hash8>.
func (t *Tool) Name() string { return t.name }

// Description returns the tool's description prefixed with its origin.
func (t *Tool) Description() string { return t.desc }

// Schema returns the input schema, or the permissive fallback when the
// server's schema was unusable.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// SchemaNote says why the server's schema was replaced by the fallback, or
// is empty when it was kept.
func (t *Tool) SchemaNote() string { return t.schemaNote }

// Server returns the id of the server the tool belongs to.
func (t *Tool) Server() string { return t.server }

// ToolName returns the tool's original name on its server.
func (t *Tool) ToolName() string { return t.def.Name }

// Title returns the display name: the title, else the annotations' title,
// else the name; one line, stripped and bounded by [termsafe.Line]. It is
// the server's claim, not the tool's identity (that is [Tool.Server] and
// [Tool.ToolName]).
func (t *Tool) Title() string {
	switch {
	case t.def.Title != "":
		return termsafe.Line(t.def.Title)
	case t.def.Annotations != nil && t.def.Annotations.Title != "":
		return termsafe.Line(t.def.Annotations.Title)
	}
	return t.def.Name
}

// Definition returns the tool as the server listed it. Callers must not
// modify it.
func (t *Tool) Definition() *mcp.Tool { return t.def }

// withName returns a copy of t under another public name.
func (t *Tool) withName(name string) *Tool {
	c := *t
	c.name = name
	return &c
}

// Call calls the tool with the model's arguments, passed to the server as
// they are. Arguments that are not a JSON object come back as a tool error
// for the model to correct; a failed call (transport, timeout,
// cancellation) is a Go error.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (*core.Result, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	} else if !isJSONObject(args) {
		return &core.Result{IsError: true, Content: []core.Content{{
			Type: core.ContentText,
			Text: "invalid arguments: expected a JSON object",
		}}}, nil
	}
	res, err := t.caller.CallTool(ctx, t.def.Name, args)
	if err != nil {
		return nil, fmt.Errorf("call tool %q on server %q: %w", t.def.Name, t.server, err)
	}
	if res == nil {
		return nil, fmt.Errorf("call tool %q on server %q: no result", t.def.Name, t.server)
	}
	if k := keeperFrom(ctx); k != nil {
		return convertKeeping(res, t.maxOut, k, t.server, t.def.Name), nil
	}
	return ConvertResult(res, t.maxOut), nil
}

// isJSONObject reports whether b is valid JSON whose value is an object.
func isJSONObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return json.Valid(b)
		}
		return false
	}
	return false
}

// validUTF8 replaces invalid UTF-8 in s with U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
