package schema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/protocol/schema"
)

// The committed schema.json is what the Go types generate now.
func TestCommittedSchemaIsCurrent(t *testing.T) {
	got, err := schema.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, schema.Committed) {
		t.Fatalf("protocol/schema/schema.json differs from what the Go types in protocol/ generate: run `%s` and commit the result", schema.Regenerate)
	}
}

// The document names every method of protocol.Methods with $defs for its
// params and result, every error code, and the version.
func TestDocumentCoversTheProtocol(t *testing.T) {
	var doc struct {
		Version string                     `json:"x-protocol-version"`
		Methods []schema.Method            `json:"x-methods"`
		Errors  []schema.ErrorCode         `json:"x-errors"`
		Defs    map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(schema.Committed, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != protocol.Version {
		t.Errorf("x-protocol-version %q, want %q", doc.Version, protocol.Version)
	}
	if len(doc.Methods) != len(protocol.Methods) || len(doc.Errors) != len(protocol.Errors) {
		t.Errorf("%d methods and %d errors, want %d and %d", len(doc.Methods), len(doc.Errors), len(protocol.Methods), len(protocol.Errors))
	}
	for _, m := range doc.Methods {
		for _, d := range []string{m.Params, m.Result} {
			if d != "" && doc.Defs[d] == nil {
				t.Errorf("%s names $defs %q, which is missing", m.Name, d)
			}
		}
	}
	for _, d := range []string{"Request", "Notification", "Response", "ErrorObject", "ErrorData"} {
		if doc.Defs[d] == nil {
			t.Errorf("$defs has no %s", d)
		}
	}
}

func newValidator(t *testing.T) *schema.Validator {
	t.Helper()
	v, err := schema.NewValidator(schema.Committed)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A conversation that follows the protocol passes, in both directions,
// responses checked against the result type of the request they answer.
func TestValidatorAcceptsAConversation(t *testing.T) {
	v := newValidator(t)
	ui, rt := protocol.UIToRuntime, protocol.RuntimeToUI
	for _, m := range []struct {
		from protocol.Direction
		line string
	}{
		{ui, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"` + protocol.Version + `","client_info":{"name":"t"},"capabilities":{"confirm":true}}}`},
		{rt, `{"jsonrpc":"2.0","method":"mcp.status","params":{"server":{"id":"a","transport":"stdio","enabled":true,"state":"ready","status":"ready","tools":3}}}`},
		{rt, `{"jsonrpc":"2.0","id":1,"result":{"protocol_version":"` + protocol.Version + `","server_info":{"name":"mcp-host"},"capabilities":{"runs":false,"login":true},"servers":[]}}`},
		{ui, `{"jsonrpc":"2.0","id":2,"method":"mcp.list"}`},
		{rt, `{"jsonrpc":"2.0","id":7,"method":"ui.confirm.request","params":{"kind":"login","title":"t","message":"m","options":["yes","no"],"timeout_ms":1000}}`},
		{ui, `{"jsonrpc":"2.0","id":7,"result":{"answer":"yes"}}`},
		{rt, `{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"no","data":{"kind":"not_initialized"}}}`},
		{ui, `{"jsonrpc":"2.0","method":"ui.request.cancelled","params":{"id":3,"method":"tool.call","reason":"cancelled"}}`},
	} {
		if err := v.Check(m.from, []byte(m.line)); err != nil {
			t.Errorf("%v", err)
		}
	}
	if n, bad := v.Counts(); n != 8 || bad != 0 {
		t.Errorf("counts %d, %d; want 8, 0", n, bad)
	}
}

// Messages that break the schema are caught: a field of the wrong type, a
// field the types do not have, a result of the wrong shape for the
// request it answers, a method in the wrong direction, an unknown method.
func TestValidatorCatchesWrongMessages(t *testing.T) {
	ui, rt := protocol.UIToRuntime, protocol.RuntimeToUI
	for _, c := range []struct {
		name, want string
		from       protocol.Direction
		lines      []string
	}{
		{"wrong field type", "tools", rt, []string{`{"jsonrpc":"2.0","method":"mcp.status","params":{"server":{"id":"a","transport":"stdio","enabled":true,"state":"ready","status":"ready","tools":"3"}}}`}},
		{"unknown field", "colour", ui, []string{`{"jsonrpc":"2.0","id":1,"method":"run.start","params":{"prompt":"hi","colour":"red"}}`}},
		{"missing required field", "prompt", ui, []string{`{"jsonrpc":"2.0","id":1,"method":"run.start","params":{}}`}},
		{"result of the wrong shape", "result of run.start", rt, []string{`{"jsonrpc":"2.0","id":9,"method":"ui.prompt.request","params":{"title":"t","message":"m","timeout_ms":1}}`, `{"jsonrpc":"2.0","id":1,"result":{"run_id":5,"conversation":"c"}}`}},
		{"wrong direction", "runtime_to_ui", ui, []string{`{"jsonrpc":"2.0","method":"mcp.status","params":{"server":{}}}`}},
		{"unknown method", "not in the schema", ui, []string{`{"jsonrpc":"2.0","id":1,"method":"mcp.frobnicate"}`}},
		{"bad error data", "kind", rt, []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x","data":{"kind":1}}}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := newValidator(t)
			if c.name == "result of the wrong shape" {
				// the UI asked run.start first; the runtime's answer is the last line
				if err := v.Check(ui, []byte(`{"jsonrpc":"2.0","id":1,"method":"run.start","params":{"prompt":"hi"}}`)); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			for _, l := range c.lines {
				if err = v.Check(c.from, []byte(l)); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
			if _, bad := v.Counts(); bad != 1 {
				t.Errorf("%d invalid, want 1", bad)
			}
		})
	}
}

// The committed TypeScript client is what the committed schema generates.
func TestCommittedTypeScriptIsCurrent(t *testing.T) {
	js, dts, err := schema.TypeScript(schema.Committed)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]byte{"index.js": js, "index.d.ts": dts, "schema.json": schema.Committed} {
		got, err := os.ReadFile(filepath.Join("..", "..", "clients", "typescript", file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("clients/typescript/%s differs from what protocol/schema/schema.json generates: run `%s` and commit the result", file, schema.Regenerate)
		}
	}
}

// The committed protocol module of host web's page is what the committed
// schema generates, and starts with the TypeScript client's tables.
func TestCommittedPageModuleIsCurrent(t *testing.T) {
	page, err := schema.Page(schema.Committed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(schema.PagePath)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, page) {
		t.Errorf("%s differs from what protocol/schema/schema.json generates: run `%s` and commit the result", schema.PagePath, schema.Regenerate)
	}
	js, _, err := schema.TypeScript(schema.Committed)
	if err != nil {
		t.Fatal(err)
	}
	tables := string(js[:strings.Index(string(js), "\nimport ")])
	tables = tables[strings.Index(tables, "/** The UI protocol version"):]
	if !strings.Contains(string(page), tables) {
		t.Errorf("%s does not hold the TypeScript client's tables", schema.PagePath)
	}
}

// Types and fields carry their Go doc comments, also fields promoted from
// an embedded struct.
func TestDocumentCarriesDocComments(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Description string                     `json:"description"`
			Properties  map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema.Committed, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ def, field, want string }{
		{"ConfirmParams", "", "ask the user a question"},
		{"ConfirmParams", "kind", "tool_call, login or elicitation"},
		{"ServerDetail", "state", "State* constants"}, // from the embedded ServerStatus
		{"ServerDetail", "stderr", "stdio server's stderr"},
	} {
		d := doc.Defs[c.def]
		got := d.Description
		if c.field != "" {
			var p struct {
				Description string `json:"description"`
			}
			_ = json.Unmarshal(d.Properties[c.field], &p)
			got = p.Description
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s %s: description %q, want it to contain %q", c.def, c.field, got, c.want)
		}
	}
}
