package schema_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/protocol/schema"
)

// Every old name PROTOCOL.md's "Aliases" lists is marked deprecated in the
// schema, and the validator names it when a UI sends it: the e2e schema
// check refuses it from the host's own UIs.
func TestOldNamesAreDeprecated(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema.Committed, &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for name, def := range doc.Defs {
		for field, raw := range def.Properties {
			var p struct {
				Deprecated bool `json:"deprecated"`
			}
			if json.Unmarshal(raw, &p) == nil && p.Deprecated { // a property may be the schema true
				got = append(got, name+"."+field)
			}
		}
	}
	slices.Sort(got)
	want := []string{"ApproveParams.id", "ErrorData.state", "LoginParams.id", "LogoutParams.id",
		"SandboxStatus.state", "ServerDetail.state", "ServerParams.id", "ServerStatus.state"}
	if !slices.Equal(got, want) {
		t.Errorf("deprecated fields of the schema:\n got %q\nwant %q", got, want)
	}

	v, err := schema.NewValidator(schema.Committed)
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string][]string{
		`{"jsonrpc":"2.0","id":1,"method":"mcp.get","params":{"id":"a"}}`:                                 {"mcp.get params.id"},
		`{"jsonrpc":"2.0","id":2,"method":"mcp.approve","params":{"id":"a","approve":true,"digest":"d"}}`: {"mcp.approve params.id"},
		`{"jsonrpc":"2.0","id":3,"method":"mcp.get","params":{"server":"a"}}`:                             nil,
		`{"jsonrpc":"2.0","id":4,"method":"registry.add","params":{"id":"a","name":"n","runs":"r"}}`:      nil,
		`{"jsonrpc":"2.0","id":5,"result":{"id":"a"}}`:                                                    nil,
	} {
		if got := v.Deprecated(protocol.UIToRuntime, []byte(line)); !slices.Equal(got, want) {
			t.Errorf("Deprecated(%s) = %q, want %q", line, got, want)
		}
	}
}
