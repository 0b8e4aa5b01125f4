package schema_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/protocol/schema"
)

// kept reads the kept schema of version v.
func kept(t *testing.T, v string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("versions", v+".json"))
	if err != nil {
		t.Fatalf("the kept schema of %s: %v (run `%s`)", v, err, schema.Regenerate)
	}
	return b
}

// Today's schema is an additive change of the schema the current version
// was released with: a change that is not additive needs a new version.
func TestSchemaChangesAreAdditive(t *testing.T) {
	breaks, err := schema.Breaking(kept(t, protocol.Version), schema.Committed)
	if err != nil {
		t.Fatal(err)
	}
	if len(breaks) > 0 {
		t.Errorf("the schema changed in ways a UI of %s cannot ignore; bump protocol.Version (and PROTOCOL.md's Versions and Changes), or make the change additive:\n  %s",
			protocol.Version, strings.Join(breaks, "\n  "))
	}
}

// Every kept schema is of a version the runtime still speaks or one that
// has left the window (never a version it does not know), and every
// version of the window since the schema exists has its kept schema.
func TestKeptSchemas(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("versions", "*.json"))
	var keptVersions []string
	for _, f := range files {
		keptVersions = append(keptVersions, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	if len(keptVersions) == 0 {
		t.Fatal("no kept schema")
	}
	first := slices.Min(keptVersions)
	for _, v := range protocol.Versions {
		if v >= first && !slices.Contains(keptVersions, v) {
			t.Errorf("version %s of the window has no kept schema", v)
		}
	}
	for _, v := range keptVersions {
		if v > protocol.Version {
			t.Errorf("a kept schema of %s, newer than the runtime's %s", v, protocol.Version)
		}
		var doc struct {
			Version string `json:"x-protocol-version"`
		}
		if err := json.Unmarshal(kept(t, v), &doc); err != nil || doc.Version != v {
			t.Errorf("versions/%s.json says version %q (%v)", v, doc.Version, err)
		}
	}
}

// Breaking finds each kind of non-additive change made by hand to the
// current schema, and passes the additive ones.
func TestBreaking(t *testing.T) {
	edit := func(fn func(defs map[string]any, doc map[string]any)) []byte {
		var doc map[string]any
		if err := json.Unmarshal(schema.Committed, &doc); err != nil {
			t.Fatal(err)
		}
		fn(doc["$defs"].(map[string]any), doc)
		b, _ := json.Marshal(doc)
		return b
	}
	props := func(defs map[string]any, def string) map[string]any {
		return defs[def].(map[string]any)["properties"].(map[string]any)
	}
	for _, c := range []struct {
		name string
		fn   func(defs, doc map[string]any)
		want string // "" for additive
	}{
		{"a property removed", func(d, _ map[string]any) { delete(props(d, "ServerStatus"), "tools") }, "ServerStatus.tools removed"},
		{"a property renamed", func(d, _ map[string]any) {
			p := props(d, "ToolCallParams")
			p["args"] = p["arguments"]
			delete(p, "arguments")
		}, "ToolCallParams.arguments removed"},
		{"a type changed", func(d, _ map[string]any) { props(d, "ServerStatus")["tools"] = map[string]any{"type": "string"} }, "ServerStatus.tools changed"},
		{"a definition removed", func(d, _ map[string]any) { delete(d, "RunCancelParams") }, "definition RunCancelParams removed"},
		{"a method removed", func(_, doc map[string]any) {
			doc["x-methods"] = slices.DeleteFunc(doc["x-methods"].([]any), func(m any) bool { return m.(map[string]any)["name"] == "run.cancel" })
		}, "method run.cancel removed"},
		{"a field the UI must send", func(d, _ map[string]any) {
			def := d["ToolCallParams"].(map[string]any)
			props(d, "ToolCallParams")["reason"] = map[string]any{"type": "string"}
			def["required"] = append(def["required"].([]any), "reason")
		}, "ToolCallParams.reason is now required of the UI"},
		{"a new optional field", func(d, _ map[string]any) { props(d, "ToolCallParams")["reason"] = map[string]any{"type": "string"} }, ""},
		{"a new field the runtime always sends", func(d, _ map[string]any) {
			def := d["ServerStatus"].(map[string]any)
			props(d, "ServerStatus")["uptime"] = map[string]any{"type": "integer"}
			def["required"] = append(def["required"].([]any), "uptime")
		}, ""},
		{"a new definition and method", func(d, doc map[string]any) {
			d["PingParams"] = map[string]any{"type": "object"}
			doc["x-methods"] = append(doc["x-methods"].([]any), map[string]any{"name": "ping", "direction": "ui_to_runtime", "params": "PingParams"})
		}, ""},
		{"a description reworded", func(d, _ map[string]any) {
			props(d, "ServerStatus")["tools"].(map[string]any)["description"] = "new words"
		}, ""},
	} {
		breaks, err := schema.Breaking(schema.Committed, edit(c.fn))
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" && len(breaks) > 0 || c.want != "" && !slices.Contains(breaks, c.want) {
			t.Errorf("%s: Breaking = %q, want %q", c.name, breaks, c.want)
		}
	}
}
