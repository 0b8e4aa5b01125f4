package schema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-host/mcp-host/protocol"
)

// docs are the doc comments of package protocol: by type name, and by
// "Type.Field".
type docs map[string]string

// readDocs parses the embedded source of package protocol for the doc
// comments of its types and their fields.
func readDocs() (docs, error) {
	d := docs{}
	files, err := fs.Glob(protocol.Source, "*.go")
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(protocol.Source, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(g.Specs) == 1 {
					doc = g.Doc
				}
				d[ts.Name.Name] = text(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, field := range st.Fields.List {
					c := text(field.Doc)
					if c == "" {
						c = text(field.Comment)
					}
					for _, n := range field.Names {
						d[ts.Name.Name+"."+n.Name] = c
					}
				}
			}
		}
	}
	return d, nil
}

// text is a comment group as one line.
func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

// describe sets the descriptions of s, the schema of t, and of its
// properties from the doc comments, and marks "deprecated" the properties
// that are an old name (tag renamed:"NEW").
func (d docs) describe(s *jsonschema.Schema, t reflect.Type) {
	s.Description = d[t.Name()]
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		owner := t
		if len(f.Index) > 1 {
			owner = t.FieldByIndex(f.Index[:len(f.Index)-1]).Type
			for owner.Kind() == reflect.Pointer {
				owner = owner.Elem()
			}
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if c := d[owner.Name()+"."+f.Name]; c != "" {
			p.Description = c
		}
		// An old name kept as an alias (tag renamed:"NEW") is deprecated.
		if f.Tag.Get("renamed") != "" {
			p.Deprecated = true
		}
	}
}
