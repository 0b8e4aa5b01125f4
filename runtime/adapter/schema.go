package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"

	fastjson "github.com/segmentio/encoding/json"
)

// FallbackSchema is the permissive schema given to a tool whose own input
// schema is missing, too large or not an object schema.
const FallbackSchema = `{"type":"object","additionalProperties":true}`

var fallbackSchema = json.RawMessage(FallbackSchema)

// arenaChunk is the size of the blocks schemas are packed into.
const arenaChunk = 256 << 10

// A schemaEncoder turns input schemas into JSON. It reuses its buffer and
// packs results into shared blocks, so a catalog of many tools costs few
// allocations. Not safe for concurrent use.
type schemaEncoder struct {
	scratch []byte
	keys    [][]string
	buf     bytes.Buffer
	enc     *json.Encoder
	arena   []byte
}

// schema returns the JSON of an input schema the server sent, or the
// fallback and a note saying why the schema was not used. The schema is
// never resolved: $ref and every other keyword pass through untouched.
// Schemas that arrive as raw JSON are kept byte for byte; decoded ones (the
// SDK's client decodes into map[string]any) are encoded generically, so no
// keyword is lost.
func (e *schemaEncoder) schema(in any, limit int) (json.RawMessage, string) {
	var raw []byte
	switch s := in.(type) {
	case nil:
		return fallbackSchema, "no inputSchema given"
	case json.RawMessage:
		raw = bytes.TrimSpace(s)
	case []byte:
		raw = bytes.TrimSpace(s)
	case map[string]any:
		// Check the shape before paying for the encoding.
		if note := typeNote(s["type"], true); note != "" {
			return fallbackSchema, note
		}
		out, err := e.encode(s, limit)
		if err != nil {
			return fallbackSchema, err.Error()
		}
		return out, ""
	default:
		out, err := e.encode(s, limit)
		if err != nil {
			return fallbackSchema, err.Error()
		}
		raw = out
	}
	if len(raw) > limit {
		return fallbackSchema, fmt.Sprintf("inputSchema is %d bytes, over the %d-byte limit", len(raw), limit)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return fallbackSchema, "inputSchema is not a JSON object"
	}
	// segmentio's validator reads the same JSON as encoding/json's at four
	// times the speed (a catalog of 10,000 schemas is 4 MB), but it has no
	// depth limit: encoding/json's is checked below, or the model's
	// request, which encoding/json writes, could not be encoded at all.
	if !fastjson.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return fallbackSchema, fmt.Sprintf("inputSchema is not valid JSON: %v", err)
	}
	typ, depth := topLevelType(raw)
	if depth > maxSchemaDepth {
		return fallbackSchema, fmt.Sprintf("inputSchema is not valid JSON: nested %d deep, over the %d levels encoding/json reads", depth, maxSchemaDepth)
	}
	if string(typ) == `"object"` {
		return raw, ""
	}
	var v any
	if typ != nil && json.Unmarshal(typ, &v) == nil {
		if note := typeNote(v, true); note != "" {
			return fallbackSchema, note
		}
		return raw, "" // "object" spelled with escapes
	}
	return fallbackSchema, typeNote(nil, false)
}

// maxSchemaDepth is the deepest nesting encoding/json reads and writes
// (its scanner's maxNestingDepth).
const maxSchemaDepth = 10000

// typeNote explains why a schema's "type" is not "object", or returns "".
func typeNote(typ any, present bool) string {
	if !present || typ == nil {
		return `inputSchema has no "type":"object"`
	}
	if s, ok := typ.(string); ok && s == "object" {
		return ""
	}
	b, _ := json.Marshal(typ)
	return fmt.Sprintf(`inputSchema has "type":%s, not "object"`, truncateNote(b))
}

// truncateNote keeps notes short when a server sends a huge "type".
func truncateNote(b []byte) string {
	const keep = 40
	if len(b) <= keep {
		return string(b)
	}
	return validUTF8(string(b[:keep])) + "..."
}

// encode encodes v without HTML escaping into the arena, failing when the
// result exceeds limit bytes.
func (e *schemaEncoder) encode(v any, limit int) (json.RawMessage, error) {
	b, ok := appendJSON(e.scratch[:0], v, &e.keys, 0)
	e.scratch = b[:0]
	if !ok {
		// Not a plain decoded value: let encoding/json handle it.
		if e.enc == nil {
			e.enc = json.NewEncoder(&e.buf)
			e.enc.SetEscapeHTML(false)
		}
		e.buf.Reset()
		if err := e.enc.Encode(v); err != nil {
			return nil, fmt.Errorf("inputSchema cannot be encoded: %v", err)
		}
		b = bytes.TrimSpace(e.buf.Bytes())
	}
	if len(b) > limit {
		return nil, fmt.Errorf("inputSchema is %d bytes, over the %d-byte limit", len(b), limit)
	}
	if len(b) > cap(e.arena)-len(e.arena) {
		e.arena = make([]byte, 0, max(arenaChunk, len(b)))
	}
	start := len(e.arena)
	e.arena = append(e.arena, b...)
	return e.arena[start:len(e.arena):len(e.arena)], nil
}
