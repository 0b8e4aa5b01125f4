package adapter

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// collidingA and collidingB are different tools of server "s" with the same
// public name: same slug, and sha256 prefixes that happen to match (found
// by a birthday search).
const (
	collidingA = "t-a-b-c-d.e.f.g-h-i-j.k-l-m.n.o.p-q.r.s.t.u.v"
	collidingB = "t-a-b-c-d.e.f.g-h-i.j-k.l.m-n-o.p-q.r.s.t.u.v"
)

func defs(names ...string) []*mcp.Tool {
	out := make([]*mcp.Tool, len(names))
	for i, n := range names {
		out[i] = &mcp.Tool{Name: n, InputSchema: map[string]any{"type": "object"}}
	}
	return out
}

func TestBuildCatalogFilterAndProblems(t *testing.T) {
	tools := defs("read", "write", "delete", "read")
	tools = append(tools, nil, &mcp.Tool{})
	keep := func(name string) bool { ok, _ := path.Match("[rw]*", name); return ok }
	cat, err := BuildCatalog("fs", tools, textResult(""), keep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range cat.Tools {
		names = append(names, tool.ToolName())
		if tool.Name() != PublicName("fs", tool.ToolName()) {
			t.Errorf("%s named %s", tool.ToolName(), tool.Name())
		}
	}
	if strings.Join(names, ",") != "read,write" {
		t.Errorf("tools = %v, want read,write", names)
	}
	probs := strings.Join(cat.Problems, "\n")
	for _, want := range []string{`server "fs": tool "read" listed more than once`, `server "fs": tool #4 has no name`, `server "fs": tool #5 has no name`} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems %q lack %q", probs, want)
		}
	}
	if _, err := BuildCatalog("", tools, textResult(""), nil, Options{}); err == nil {
		t.Error("empty server id accepted")
	}
	if _, err := BuildCatalog("fs", tools, nil, nil, Options{}); err == nil {
		t.Error("nil caller accepted")
	}
}

func TestCollidingPairIsReal(t *testing.T) {
	if PublicName("s", collidingA) != PublicName("s", collidingB) {
		t.Fatal("the test pair does not collide")
	}
}

// TestSnapshotResolvesCollisions: a name shared by two MCP tools, or by an
// MCP tool and a local tool, resolves the same way whatever the order.
func TestSnapshotResolvesCollisions(t *testing.T) {
	local := PublicName("gh", "issue")
	var first map[string]Origin
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		sTools := defs(collidingA, collidingB, "other")
		ghTools := defs("issue", "pr")
		r.Shuffle(len(sTools), func(i, j int) { sTools[i], sTools[j] = sTools[j], sTools[i] })
		s, _ := BuildCatalog("s", sTools, textResult(""), nil, Options{})
		gh, _ := BuildCatalog("gh", ghTools, textResult(""), nil, Options{})
		cats := []*Catalog{s, gh}
		if round%2 == 1 {
			cats = []*Catalog{gh, s}
		}
		snap := NewSnapshot(cats, []string{"local_tool", local})

		got := map[string]Origin{}
		for _, tool := range snap.Tools() {
			if !valid.MatchString(tool.Name()) {
				t.Fatalf("invalid name %q", tool.Name())
			}
			o, ok := snap.Table().Lookup(tool.Name())
			if !ok || o != (Origin{tool.Server(), tool.ToolName()}) {
				t.Fatalf("table: %q -> %v, %v", tool.Name(), o, ok)
			}
			if same, _ := snap.Tool(tool.Name()); same != tool {
				t.Fatalf("Tool(%q) is not the listed tool", tool.Name())
			}
			if _, dup := got[tool.Name()]; dup {
				t.Fatalf("name %q given twice", tool.Name())
			}
			got[tool.Name()] = o
		}
		if len(got) != 5 || snap.Table().Len() != 7 {
			t.Fatalf("%d tools, table of %d", len(got), snap.Table().Len())
		}
		if o, _ := snap.Table().Lookup(local); o != (Origin{Tool: local}) {
			t.Errorf("local name %q now leads to %v", local, o)
		}
		// The first by (server, tool) keeps the contested name.
		if o := got[PublicName("s", collidingA)]; o != (Origin{"s", collidingA}) {
			t.Errorf("contested name went to %v", o)
		}
		if len(snap.Renamed) != 2 {
			t.Errorf("renamed = %q", snap.Renamed)
		}
		if first == nil {
			first = got
		} else if fmt.Sprint(first) != fmt.Sprint(got) {
			t.Fatalf("order changed the names:\n%v\n%v", first, got)
		}
		if len(snap.CoreTools()) != 5 {
			t.Error("CoreTools lost tools")
		}
	}
}

func TestSnapshotIgnoresDuplicateServer(t *testing.T) {
	a, _ := BuildCatalog("s", defs("x"), textResult(""), nil, Options{})
	b, _ := BuildCatalog("s", defs("x", "y"), textResult(""), nil, Options{})
	snap := NewSnapshot([]*Catalog{a, nil, b}, nil)
	if len(snap.Tools()) != 1 || snap.Tools()[0] != a.Tools[0] {
		t.Errorf("tools = %v", snap.Tools())
	}
}

// benchTools mimics a big server as the SDK client hands it over: decoded
// map schemas with a few properties.
func benchTools(n int) []*mcp.Tool {
	tools := make([]*mcp.Tool, n)
	for i := range tools {
		tools[i] = &mcp.Tool{
			Name:        fmt.Sprintf("tool_%05d", i),
			Description: "Does thing number " + fmt.Sprint(i) + ".",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"path":  map[string]any{"type": "string", "description": "file path"},
					"count": map[string]any{"type": "integer", "minimum": 0},
				},
				"required": []any{"path"},
			},
		}
	}
	return tools
}

func BenchmarkBuildCatalog10k(b *testing.B) {
	tools := benchTools(10000)
	caller := textResult("")
	b.ReportAllocs()
	for b.Loop() {
		cat, err := BuildCatalog("server", tools, caller, nil, Options{})
		if err != nil || len(cat.Tools) != 10000 {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildCatalog10kRawSchemas(b *testing.B) {
	tools := benchTools(10000)
	for _, t := range tools {
		t.InputSchema = objectSchema
	}
	caller := textResult("")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildCatalog("server", tools, caller, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot10k(b *testing.B) {
	cat, _ := BuildCatalog("server", benchTools(10000), textResult(""), nil, Options{})
	b.ReportAllocs()
	for b.Loop() {
		NewSnapshot([]*Catalog{cat}, []string{"read_file"})
	}
}
