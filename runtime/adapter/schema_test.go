package adapter

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func newWithSchema(t *testing.T, schema any, opts Options) *Tool {
	t.Helper()
	tool, err := New("s", &mcp.Tool{Name: "t", InputSchema: schema}, textResult(""), opts)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// schema2020 uses 2020-12 keywords, odd key order, spacing, escapes and a
// large integer: a re-marshal through a struct would change it.
const schema2020 = `{"type":"object",  "$schema":"https://json-schema.org/draft/2020-12/schema",
 "$defs":{"pt":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"}],"items":false}},
 "properties":{"p":{"$ref":"#/$defs/pt"},"q":{"$dynamicRef":"#meta"},"n":{"const":12345678901234567890},
  "s":{"type":"string","pattern":"^<a&b>\u00e9$"}},
 "dependentSchemas":{"p":{"required":["q"]}},"dependentRequired":{"q":["p"]},
 "unevaluatedProperties":false,"$anchor":"root","x-vendor":{"z":1,"a":2}}`

func TestSchemaKept2020ByteForByte(t *testing.T) {
	for _, in := range []any{json.RawMessage(schema2020), []byte(schema2020)} {
		tool := newWithSchema(t, in, Options{})
		if string(tool.Schema()) != schema2020 {
			t.Errorf("%T schema changed:\n got %s\nwant %s", in, tool.Schema(), schema2020)
		}
		if tool.SchemaNote() != "" {
			t.Errorf("note = %q, want none", tool.SchemaNote())
		}
	}
}

// TestSchemaFromRealServer: the SDK client decodes schemas into maps; every
// keyword must survive, with no HTML escaping.
func TestSchemaFromRealServer(t *testing.T) {
	p := newPeer(t, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(schema2020)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	})
	defs := p.tools(t)
	if _, ok := defs[0].InputSchema.(map[string]any); !ok {
		t.Fatalf("client gave %T, this test expects the SDK's map", defs[0].InputSchema)
	}
	tool, err := New("s", defs[0], p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tool.SchemaNote() != "" {
		t.Fatalf("note = %q", tool.SchemaNote())
	}
	var got, want any
	if err := json.Unmarshal(tool.Schema(), &got); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(schema2020), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema lost content:\n got %s", tool.Schema())
	}
	if !strings.Contains(string(tool.Schema()), `^<a&b>é$`) {
		t.Errorf("schema was HTML-escaped: %s", tool.Schema())
	}
}

func TestSchemaTypeSpellings(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object"}`,
		` { "type" : "object" } `,
		`{"t\u0079pe":"obj\u0065ct"}`,
		`{"x":{"type":"array","a":[1,{"b":"]}"}]},"type":"object"}`,
		`{"type":"array","type":"object"}`,
	} {
		tool := newWithSchema(t, json.RawMessage(raw), Options{})
		if tool.SchemaNote() != "" || string(tool.Schema()) != strings.TrimSpace(raw) {
			t.Errorf("%s: note %q, schema %s", raw, tool.SchemaNote(), tool.Schema())
		}
	}
}

func TestSchemaSizeLimit(t *testing.T) {
	// pad builds an object schema of exactly n bytes.
	pad := func(n int) json.RawMessage {
		head := `{"type":"object","description":"`
		return json.RawMessage(head + strings.Repeat("a", n-len(head)-2) + `"}`)
	}
	const limit = 1000
	at := newWithSchema(t, pad(limit), Options{MaxSchemaBytes: limit})
	if len(at.Schema()) != limit || at.SchemaNote() != "" {
		t.Errorf("schema of exactly the limit: got %d bytes, note %q", len(at.Schema()), at.SchemaNote())
	}
	over := newWithSchema(t, pad(limit+1), Options{MaxSchemaBytes: limit})
	if string(over.Schema()) != FallbackSchema || !strings.Contains(over.SchemaNote(), "1001 bytes, over the 1000-byte limit") {
		t.Errorf("schema over the limit: %s, note %q", over.Schema(), over.SchemaNote())
	}
	// The default limit is 64 KiB, for decoded schemas too.
	big := map[string]any{"type": "object", "description": strings.Repeat("b", 64<<10)}
	def := newWithSchema(t, big, Options{})
	if string(def.Schema()) != FallbackSchema || !strings.Contains(def.SchemaNote(), "over the 65536-byte limit") {
		t.Errorf("decoded schema over 64 KiB: note %q", def.SchemaNote())
	}
	small := map[string]any{"type": "object", "description": strings.Repeat("b", 60<<10)}
	if n := newWithSchema(t, small, Options{}).SchemaNote(); n != "" {
		t.Errorf("schema under 64 KiB replaced: %q", n)
	}
}

func TestSchemaFallbacks(t *testing.T) {
	for _, tc := range []struct {
		in   any
		note string
	}{
		{nil, "no inputSchema"},
		{json.RawMessage(`[{"type":"object"}]`), "not a JSON object"},
		{json.RawMessage(`"object"`), "not a JSON object"},
		{json.RawMessage(`null`), "not a JSON object"},
		{json.RawMessage(``), "not a JSON object"},
		{json.RawMessage(`{"type":"object"`), "not valid JSON"},
		{json.RawMessage(`{"type":"array","items":{}}`), `"type":"array", not "object"`},
		{json.RawMessage(`{"type":["object","null"]}`), `"type":["object","null"], not "object"`},
		{json.RawMessage(`{"properties":{}}`), `no "type":"object"`},
		{json.RawMessage(`{"type":null}`), `no "type":"object"`},
		{map[string]any{"type": "string"}, `"type":"string", not "object"`},
		{json.RawMessage(`{"properties":{"type":"object"},"items":[{"type":"object"}]}`), `no "type":"object"`},
		{json.RawMessage(`{"type":"object","type":"array"}`), `"type":"array"`},
		{json.RawMessage(`{"a":"}\"{","type" : "string"}`), `"type":"string"`},
		{map[string]any{"properties": map[string]any{}}, `no "type":"object"`},
		{map[string]any{"type": "object", "bad": func() {}}, "cannot be encoded"},
	} {
		tool := newWithSchema(t, tc.in, Options{})
		if string(tool.Schema()) != FallbackSchema {
			t.Errorf("%v: schema %s, want the fallback", tc.in, tool.Schema())
		}
		if !strings.Contains(tool.SchemaNote(), tc.note) {
			t.Errorf("%v: note %q, want it to contain %q", tc.in, tool.SchemaNote(), tc.note)
		}
	}
}

// TestSchemaRefsNotFetched: a $ref pointing at a (loopback) server is passed
// on as text and never fetched.
func TestSchemaRefsNotFetched(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"string"}`))
	}))
	defer srv.Close()
	schema := `{"type":"object","properties":{"a":{"$ref":"` + srv.URL + `/schema.json"}},"$id":"` + srv.URL + `/root"}`
	tool := newWithSchema(t, json.RawMessage(schema), Options{})
	if string(tool.Schema()) != schema {
		t.Errorf("schema changed: %s", tool.Schema())
	}
	decoded := map[string]any{}
	json.Unmarshal([]byte(schema), &decoded)
	newWithSchema(t, decoded, Options{})
	if _, err := tool.Call(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the $ref server was contacted %d times", n)
	}
}

// TestSchemaNestingEncodingJSONCannotWrite: a server's schema nested deeper
// than encoding/json reads is replaced, or the model's request, which
// carries every schema, could not be encoded and no run would get past its
// first step. Just within the limit it is kept, and encodes.
func TestSchemaNestingEncodingJSONCannotWrite(t *testing.T) {
	nested := func(depth int) json.RawMessage { // an object schema of depth levels
		inner := depth - 1
		return json.RawMessage(`{"type":"object","default":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}`)
	}
	for _, tc := range []struct {
		depth int
		kept  bool
	}{{9999, true}, {10000, true}, {10001, false}, {30000, false}} {
		in := nested(tc.depth)
		tool := newWithSchema(t, in, Options{})
		_, encErr := json.Marshal(in)
		if kept := string(tool.Schema()) == string(in); kept != tc.kept || kept != (encErr == nil) {
			t.Errorf("depth %d: kept %v (note %q), want %v; encoding/json: %v", tc.depth, kept, tool.SchemaNote(), tc.kept, encErr)
		}
		if !tc.kept && !strings.Contains(tool.SchemaNote(), "nested") {
			t.Errorf("depth %d: note %q, want it to say how deep", tc.depth, tool.SchemaNote())
		}
		if _, err := json.Marshal(tool.Schema()); err != nil {
			t.Errorf("depth %d: the schema handed on does not encode: %v", tc.depth, err)
		}
	}
}
