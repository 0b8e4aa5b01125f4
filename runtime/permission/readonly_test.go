package permission

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func boolp(b bool) *bool { return &b }

// TestReadOnlyClaim: only readOnlyHint true with openWorldHint explicitly
// false qualifies; openWorldHint defaults to true in the MCP spec.
func TestReadOnlyClaim(t *testing.T) {
	for _, c := range []struct {
		a    *mcp.ToolAnnotations
		want bool
	}{
		{nil, false},
		{&mcp.ToolAnnotations{}, false},
		{&mcp.ToolAnnotations{ReadOnlyHint: true}, false},
		{&mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolp(true)}, false},
		{&mcp.ToolAnnotations{ReadOnlyHint: false, OpenWorldHint: boolp(false)}, false},
		{&mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolp(false)}, true},
	} {
		if got := ReadOnlyClaim(c.a); got != c.want {
			t.Errorf("ReadOnlyClaim(%+v) = %v, want %v", c.a, got, c.want)
		}
	}
}

// TestAutoAllowReadOnly: on an opted-in server a read-only, closed-world
// tool runs unasked; other tools, and every tool of a server not opted
// in, are asked; deny rules still win; a tool whose annotations change
// is asked again, and after the user lets it run its new annotations
// are trusted.
func TestAutoAllowReadOnly(t *testing.T) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolp(false)}
	rec := &recorder{answers: []Response{{Answer: AllowOnce}, {Answer: AllowOnce}, {Answer: AllowOnce}, {Answer: AllowOnce}}}
	g := mustGate(t, Options{
		Confirmer:         rec,
		AutoAllowReadOnly: func(s string) bool { return s == "fs" },
		Deny:              []Rule{{Server: "fs", Tool: "secret"}},
	})
	check := func(server string, def *mcp.Tool) Verdict {
		t.Helper()
		v, err := g.Check(context.Background(), newTool(t, server, def), args)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := check("fs", &mcp.Tool{Name: "read", Annotations: ro}); !v.Allow || v.By != ByReadOnly || rec.asked() != 0 {
		t.Fatalf("read-only tool: %+v, asked %d; want allowed by %q unasked", v, rec.asked(), ByReadOnly)
	}
	if v := check("fs", &mcp.Tool{Name: "secret", Annotations: ro}); v.Allow || v.By != ByDenyRule {
		t.Errorf("denied tool: %+v, want the deny rule to win", v)
	}
	if v := check("fs", &mcp.Tool{Name: "open", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}); v.By != ByUser || rec.asked() != 1 {
		t.Errorf("open-world read-only tool: %+v asked %d, want asked", v, rec.asked())
	}
	if v := check("gh", &mcp.Tool{Name: "read", Annotations: ro}); v.By != ByUser || rec.asked() != 2 {
		t.Errorf("server not opted in: %+v asked %d, want asked", v, rec.asked())
	}
	changed := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolp(false), Title: "now different"}
	if v := check("fs", &mcp.Tool{Name: "read", Annotations: changed}); v.By != ByUser || rec.asked() != 3 {
		t.Errorf("changed annotations: %+v asked %d, want asked again", v, rec.asked())
	}
	if v := check("fs", &mcp.Tool{Name: "read", Annotations: changed}); v.By != ByReadOnly || rec.asked() != 3 {
		t.Errorf("after the user allowed the change: %+v asked %d, want unasked", v, rec.asked())
	}
	if v := check("fs", &mcp.Tool{Name: "read", Annotations: &mcp.ToolAnnotations{OpenWorldHint: boolp(false)}}); v.By != ByUser || rec.asked() != 4 {
		t.Errorf("no longer read-only: %+v asked %d, want asked", v, rec.asked())
	}
}
