package adapter

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool MCP Apps marks for the app alone is not in the model's catalog;
// model-only and unmarked tools are, and New still adapts an app-only
// tool (app.call_tool needs it).
func TestBuildCatalogLeavesOutAppOnlyTools(t *testing.T) {
	tools := defs("plain", "both", "model_only", "app_only")
	tools[1].Meta = mcp.Meta{"ui": map[string]any{"resourceUri": "ui://x/app.html"}}
	tools[2].Meta = mcp.Meta{"ui": map[string]any{"visibility": []any{"model"}}}
	tools[3].Meta = mcp.Meta{"ui": map[string]any{"resourceUri": "ui://x/app.html", "visibility": []any{"app"}}}
	cat, err := BuildCatalog("s", tools, textResult(""), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range cat.Tools {
		names = append(names, tool.ToolName())
	}
	if got := strings.Join(names, ","); got != "plain,both,model_only" {
		t.Errorf("catalog = %s, want plain,both,model_only", got)
	}
	if len(cat.Problems) != 0 {
		t.Errorf("problems = %v: hiding an app-only tool is not a problem", cat.Problems)
	}
	if _, err := New("s", tools[3], textResult(""), Options{}); err != nil {
		t.Errorf("New(app-only) = %v", err)
	}
}
