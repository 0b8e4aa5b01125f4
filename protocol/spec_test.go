package protocol_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// Every Method* constant of the package has its entry in protocol.Methods,
// once: a method added without one would be missing from the schema and
// the TypeScript client.
func TestEveryMethodConstantIsInTheTable(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	consts := map[string]string{} // value -> constant name
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Method") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						consts[v] = n.Name
					}
				}
			}
		}
	}
	if len(consts) < 20 {
		t.Fatalf("found only %d Method* constants: the parser missed them", len(consts))
	}
	seen := map[string]bool{}
	for _, m := range protocol.Methods {
		if seen[m.Name] {
			t.Errorf("method %s is in protocol.Methods twice", m.Name)
		}
		seen[m.Name] = true
		if m.Params == nil || (m.Result == nil) != m.Notification {
			t.Errorf("method %s: params %v, result %v, notification %v", m.Name, m.Params, m.Result, m.Notification)
		}
		if _, ok := consts[m.Name]; !ok {
			t.Errorf("protocol.Methods names %s, which no Method* constant has", m.Name)
		}
	}
	for v, name := range consts {
		if !seen[v] {
			t.Errorf("%s (%q) has no entry in protocol.Methods (spec.go): add its params and result types, then run `go run ./cmd/host protocol generate`", name, v)
		}
	}
}

// protocol.Errors has every code KindOf knows, with that kind.
func TestErrorTableMatchesKinds(t *testing.T) {
	codes := map[int64]bool{}
	for _, e := range protocol.Errors {
		codes[e.Code] = true
		if got := protocol.KindOf(e.Code); got != e.Kind {
			t.Errorf("code %d: table says %s, KindOf %s", e.Code, e.Kind, got)
		}
	}
	for c := int64(-32700); c <= -32000; c++ {
		if k := protocol.KindOf(c); k != protocol.KindFailed && !codes[c] {
			t.Errorf("code %d (%s) is missing from protocol.Errors", c, k)
		}
	}
}

// PROTOCOL.md's table of error codes has a row for every code.
func TestDocListsEveryErrorCode(t *testing.T) {
	data, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range protocol.Errors {
		if !strings.Contains(string(data), fmt.Sprintf("\n| %d |", e.Code)) {
			t.Errorf("PROTOCOL.md's Error codes table has no row for %d (%s)", e.Code, e.Kind)
		}
	}
}
