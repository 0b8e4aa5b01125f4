// Package schema describes the UI protocol of package protocol in a
// machine-readable document: JSON Schema 2020-12, generated from the Go
// types by reflection (github.com/google/jsonschema-go), with the method
// table ([protocol.Methods]), the error codes ([protocol.Errors]) and the
// protocol version as x- keywords. The document is committed as
// schema.json in this directory (`host protocol schema` prints it);
// [Validator] checks messages against it, [TypeScript] generates the
// typed client in clients/typescript from it, and [Page] host web's
// protocol module (web/static/protocol.js).
package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-host/mcp-host/protocol"
)

// Committed is the schema.json committed next to this file: what
// [Generate] returned when it was last regenerated.
//
//go:embed schema.json
var Committed []byte

// ID is the document's $id.
const ID = "https://github.com/mcp-host/mcp-host/protocol/schema/schema.json"

// Regenerate is the command that rewrites the committed files.
const Regenerate = "go run ./cmd/host protocol generate"

// Method is one entry of the document's x-methods.
type Method struct {
	Name         string `json:"name"`
	Direction    string `json:"direction"`
	Notification bool   `json:"notification,omitempty"`
	Summary      string `json:"summary"`
	// Params and Result name a $defs entry.
	Params string `json:"params"`
	Result string `json:"result,omitempty"`
}

// ErrorCode is one entry of the document's x-errors.
type ErrorCode struct {
	Code    int64  `json:"code"`
	Kind    string `json:"kind"`
	Meaning string `json:"meaning"`
}

// Generate returns the schema document of the protocol, indented, ending
// in a newline. The same Go types give the same bytes.
func Generate() ([]byte, error) {
	doc, err := build()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func build() (*jsonschema.Schema, error) {
	types := collect()
	comments, err := readDocs()
	if err != nil {
		return nil, err
	}
	defs := map[string]*jsonschema.Schema{}
	for name, t := range types {
		over := map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
			reflect.TypeFor[[]byte]():          {Type: "string", ContentEncoding: "base64"},
		}
		embedded := map[reflect.Type]bool{}
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				embedded[f.Type] = true
			}
		}
		for n2, t2 := range types {
			if n2 != name && !embedded[t2] {
				over[t2] = &jsonschema.Schema{Ref: "#/$defs/" + n2}
			}
		}
		s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: over})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		fixNullRefs(s)
		comments.describe(s, t)
		defs[name] = s
	}
	for name, s := range envelopes() {
		defs[name] = s
	}
	var methods []Method
	for _, m := range protocol.Methods {
		e := Method{Name: m.Name, Direction: string(m.Direction), Notification: m.Notification, Summary: m.Summary, Params: m.Params.Name()}
		if m.Result != nil {
			e.Result = m.Result.Name()
		}
		methods = append(methods, e)
	}
	var errs []ErrorCode
	for _, e := range protocol.Errors {
		errs = append(errs, ErrorCode{e.Code, e.Kind, e.Meaning})
	}
	return &jsonschema.Schema{
		Schema: "https://json-schema.org/draft/2020-12/schema",
		ID:     ID,
		Title:  "mcp-host UI protocol",
		Description: "JSON-RPC 2.0 between a UI and `host serve`, one message per line. " +
			"x-methods lists every method (params and result name $defs entries), x-errors every error code " +
			"(its data is ErrorData), x-protocol-version the version initialize exchanges. " +
			"Generated from the Go types of package protocol; see protocol/PROTOCOL.md.",
		Defs: defs,
		Extra: map[string]any{
			"x-protocol-version": protocol.Version,
			"x-methods":          methods,
			"x-errors":           errs,
		},
	}, nil
}

// collect returns the named struct types of the params and results of
// every method, of ErrorData, and of the types they contain, by name.
func collect() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != reflect.TypeFor[protocol.Empty]().PkgPath() {
			return
		}
		if _, ok := out[t.Name()]; ok {
			return
		}
		out[t.Name()] = t
		for _, f := range reflect.VisibleFields(t) {
			if f.IsExported() {
				walk(f.Type)
			}
		}
	}
	for _, m := range protocol.Methods {
		walk(m.Params)
		if m.Result != nil {
			walk(m.Result)
		}
	}
	walk(reflect.TypeFor[protocol.ErrorData]())
	return out
}

// fixNullRefs rewrites the schema of a pointer to a $defs type, which the
// reflector writes as {"type": ["null"], "$ref": …} (null only), into
// {"anyOf": [{"type": "null"}, {"$ref": …}]}.
func fixNullRefs(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Ref != "" && (s.Type == "null" || slices.Contains(s.Types, "null")) {
		ref := s.Ref
		*s = jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "null"}, {Ref: ref}}}
		return
	}
	for _, p := range s.Properties {
		fixNullRefs(p)
	}
	fixNullRefs(s.Items)
	fixNullRefs(s.AdditionalProperties)
}

// envelopes are the JSON-RPC 2.0 messages themselves: a request, a
// notification, a response and its error object.
func envelopes() map[string]*jsonschema.Schema {
	id := &jsonschema.Schema{Types: []string{"integer", "string"}}
	v := &jsonschema.Schema{Const: jsonschema.Ptr[any]("2.0")}
	str := &jsonschema.Schema{Type: "string"}
	return map[string]*jsonschema.Schema{
		"Request": {
			Description: "A request: params is the method's params type (x-methods).",
			Type:        "object", Required: []string{"jsonrpc", "id", "method"},
			Properties: map[string]*jsonschema.Schema{"jsonrpc": v, "id": id, "method": str, "params": {}},
		},
		"Notification": {
			Description: "A notification: no id, no answer.",
			Type:        "object", Required: []string{"jsonrpc", "method"},
			Properties:           map[string]*jsonschema.Schema{"jsonrpc": v, "method": str, "params": {}},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
		"Response": {
			Description: "The answer to a request: result (the method's result type) or error. The id is null for an error about a line whose id could not be read.",
			Type:        "object", Required: []string{"jsonrpc", "id"},
			Properties: map[string]*jsonschema.Schema{
				"jsonrpc": v, "id": {Types: []string{"integer", "string", "null"}},
				"result": {}, "error": {Ref: "#/$defs/ErrorObject"},
			},
			OneOf:                []*jsonschema.Schema{{Required: []string{"result"}}, {Required: []string{"error"}}},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
		"ErrorObject": {
			Description: "A JSON-RPC error: code (x-errors), a message for people, and data.",
			Type:        "object", Required: []string{"code", "message"},
			Properties: map[string]*jsonschema.Schema{
				"code": {Type: "integer"}, "message": str, "data": {Ref: "#/$defs/ErrorData"},
			},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
	}
}
