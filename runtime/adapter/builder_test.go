package adapter

import (
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBuilderPartsMakeTheWholeCatalog: a catalog built a page at a time is
// the one BuildCatalog makes of the whole list: the same tools, names,
// descriptions and schemas, and the same problems, with a tool's number
// counted over the whole list and a duplicate found across pages.
func TestBuilderPartsMakeTheWholeCatalog(t *testing.T) {
	list := defs("read", "write", "delete")
	list = append(list, nil, &mcp.Tool{Name: "bad\x1b[2Jname"}, &mcp.Tool{Name: "read", Description: "again"})
	list = append(list, defs("grep", "write", "stat")...)
	keep := func(name string) bool { return name != "delete" }
	opts := Options{MaxSchemaBytes: 1000, MaxOutputBytes: 99}
	whole, err := BuildCatalog("fs", list, textResult(""), keep, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range [][]int{{0, 9}, {4, 9}, {1, 3, 6, 9}, {0, 0, 5, 5, 9}} {
		b, err := NewBuilder("fs", textResult(""), keep, opts)
		if err != nil {
			t.Fatal(err)
		}
		from := 0
		for _, to := range cut {
			if err := b.Add(list[from:to]); err != nil {
				t.Fatal(err)
			}
			from = to
		}
		got := b.Catalog()
		if !reflect.DeepEqual(got.Problems, whole.Problems) {
			t.Errorf("pages %v: problems\n%q\nwant\n%q", cut, got.Problems, whole.Problems)
		}
		if len(got.Tools) != len(whole.Tools) {
			t.Fatalf("pages %v: %d tools, want %d", cut, len(got.Tools), len(whole.Tools))
		}
		for i, w := range whole.Tools {
			g := got.Tools[i]
			if g.Name() != w.Name() || g.Description() != w.Description() || string(g.Schema()) != string(w.Schema()) || g.maxOut != w.maxOut {
				t.Errorf("pages %v: tool %d = %s %q %s, want %s %q %s", cut, i, g.Name(), g.Description(), g.Schema(), w.Name(), w.Description(), w.Schema())
			}
		}
	}
	if len(whole.Tools) != 4 || len(whole.Problems) != 4 {
		t.Errorf("the list should give 4 tools (read, write, grep, stat) and 4 problems: %d, %q", len(whole.Tools), whole.Problems)
	}
}
