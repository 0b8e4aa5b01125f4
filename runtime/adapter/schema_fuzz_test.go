package adapter

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzSchema: whatever a server sends as an input schema, the adapter
// hands on either that schema, which encoding/json (the model's request
// encoder) then reads and writes, or the fallback with a note saying why.
func FuzzSchema(f *testing.F) {
	for _, s := range []string{
		schema2020, `{"type":"object"}`, `{"type":"object","a":"\ud800"}`, "{\"type\":\"object\",\"a\":\"\xff\"}",
		`{"type":"object","a":01}`, `{"type":"object",}`, `{"type":"obj\u0065ct"}`, `{"type":["object"]}`,
		`{"type":"object","d":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, ` {"type":"object"} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		tool := newWithSchema(t, json.RawMessage(in), Options{})
		got := tool.Schema()
		if string(got) == FallbackSchema && tool.SchemaNote() != "" {
			return
		}
		if !bytes.Equal(got, bytes.TrimSpace(in)) || tool.SchemaNote() != "" {
			t.Fatalf("schema %.120q became %.120q (note %q)", in, got, tool.SchemaNote())
		}
		if !json.Valid(got) {
			t.Fatalf("kept %.120q, which encoding/json does not read", got)
		}
		if _, err := json.Marshal(struct{ S json.RawMessage }{got}); err != nil {
			t.Fatalf("kept %.120q, which encoding/json cannot write: %v", got, err)
		}
	})
}
