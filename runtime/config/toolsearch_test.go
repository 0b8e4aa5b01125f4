package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestToolSearchBudget(t *testing.T) {
	dir := t.TempDir()
	global, project := filepath.Join(dir, "g.json"), filepath.Join(dir, "p.json")
	servers := `"mcp":{"servers":{"a":{"url":"https://a.example/mcp"}}}`
	writeFile(t, project, `{"version":1,"tool_search":{"max_tools":1},`+servers+`}`)
	for _, tc := range []struct {
		name, global string
		want         ToolSearch
		err          string // substring of the one file-level error
	}{
		{"absent", `{"version":1,` + servers + `}`, ToolSearch{}, ""},
		{"set", `{"version":1,"tool_search":{"max_tools":500,"max_bytes":200000},` + servers + `}`, ToolSearch{MaxTools: 500, MaxBytes: 200000}, ""},
		{"negative", `{"version":1,"tool_search":{"max_tools":-1},` + servers + `}`, ToolSearch{}, `field "tool_search.max_tools": must be 0 (the default) or more, not -1`},
		{"typo", `{"version":1,"tool_search":{"max_tool":5},` + servers + `}`, ToolSearch{}, `field "tool_search.max_tool": unknown field`},
		{"wrong type", `{"version":1,"tool_search":{"max_bytes":"64k"},` + servers + `}`, ToolSearch{}, `field "tool_search.max_bytes": must be int, not a JSON string`},
		{"not an object", `{"version":1,"tool_search":true,` + servers + `}`, ToolSearch{}, `field "tool_search": must be an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, global, tc.global)
			eff, err := Load(LoadOptions{GlobalPath: global, ProjectPath: project})
			if err != nil {
				t.Fatal(err)
			}
			if eff.ToolSearch != tc.want {
				t.Errorf("ToolSearch = %+v, want %+v (the project file's is ignored)", eff.ToolSearch, tc.want)
			}
			if tc.err == "" && len(eff.Errors) != 0 {
				t.Errorf("errors: %v", eff.Errors)
			}
			if tc.err != "" {
				if len(eff.Errors) != 1 || !strings.Contains(eff.Errors[0].Error(), tc.err) || !strings.Contains(eff.Errors[0].Error(), global) {
					t.Errorf("errors = %v, want one naming %s and %q", eff.Errors, global, tc.err)
				}
			}
			// The servers load either way.
			entryByID(t, eff, "a")
		})
	}
}
