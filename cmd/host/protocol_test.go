package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/protocol/schema"
)

// host protocol schema prints the committed document; host protocol
// generate writes the schema and the TypeScript client into a repository.
func TestProtocolCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"protocol", "schema"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !bytes.Equal(out.Bytes(), schema.Committed) {
		t.Errorf("host protocol schema differs from protocol/schema/schema.json: run `%s`", schema.Regenerate)
	}
	root := t.TempDir()
	for _, d := range []string{"protocol/schema", "clients/typescript", "web/static"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if code := run([]string{"protocol", "generate", root}, nil, &out, &errb); code != exitOK {
		t.Fatalf("generate: exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"protocol/schema/schema.json", "clients/typescript/index.js", "clients/typescript/index.d.ts", "clients/typescript/schema.json", schema.PagePath, schema.KeptPath(protocol.Version)} {
		if st, err := os.Stat(filepath.Join(root, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	errb.Reset()
	if code := run([]string{"protocol", "generate", t.TempDir()}, nil, &out, &errb); code != exitFailure || !bytes.Contains(errb.Bytes(), []byte("root of the mcp-host repository")) {
		t.Errorf("generate outside a repository: exit %d, %q", code, errb.String())
	}
}
