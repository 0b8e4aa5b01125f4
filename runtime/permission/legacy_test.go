package permission

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// legacyGolden is the digest mcp-host wrote for legacyDef before titles
// were pinned (the algorithm of commit 366e206~1, run on this definition).
const legacyGolden = "df2d7ee94d0f7dda1f1afbc555509694de25aa840441bdb32b2746a1371b2970"

func legacyDef() *mcp.Tool {
	no := false
	return &mcp.Tool{Name: "read_file", Description: "Reads a file <by path> & more.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"number","default":1.50}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no}}
}

func TestLegacyDigestGolden(t *testing.T) {
	if got := legacyDigest(legacyDef()); got != legacyGolden {
		t.Errorf("legacyDigest = %s, want %s (what older versions stored)", got, legacyGolden)
	}
}

// An "always allow this tool" answer pinned by a version before titles
// were pinned still holds after the upgrade when the definition is the
// same and has no title (the old digest then covered all the new one
// does): the call runs unasked and the answer is re-pinned to the new
// digest. A definition that changed, or that has a title the old digest
// never covered, asks again.
func TestLegacyPinIsRepinned(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*mcp.Tool)
		asks   bool
	}{
		{"same definition", func(*mcp.Tool) {}, false},
		{"description changed", func(d *mcp.Tool) { d.Description = "Deletes a file." }, true},
		{"has a title", func(d *mcp.Tool) { d.Title = "Read file" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "permissions.json")
			store, err := OpenStore(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := store.AllowTool("files", "read_file", legacyGolden); err != nil {
				t.Fatal(err)
			}
			rec := &recorder{answers: []Response{{Answer: Deny}}}
			g, err := New(Options{Store: store, Confirmer: rec})
			if err != nil {
				t.Fatal(err)
			}
			def := legacyDef()
			tc.change(def)
			tool := newTool(t, "files", def)
			v, err := g.Check(context.Background(), tool, json.RawMessage(`{"path":"a"}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.asks {
				if rec.asked() != 1 || v.Allow {
					t.Fatalf("asked %d times, verdict %+v; want one question and the deny", rec.asked(), v)
				}
				if req := rec.seen[0]; !req.Changed || req.ChangedFields != nil {
					t.Errorf("request: changed %v, fields %q; want changed, what changed unknown", req.Changed, req.ChangedFields)
				}
				if pinned := store.pinnedDigest("files", "read_file"); pinned != legacyGolden {
					t.Errorf("the old answer was re-pinned to %s", pinned)
				}
				return
			}
			if rec.asked() != 0 || !v.Allow || v.By != ByRemembered {
				t.Fatalf("asked %d times, verdict %+v; want allowed by the remembered answer, unasked", rec.asked(), v)
			}
			reopened, err := OpenStore(path)
			if err != nil {
				t.Fatal(err)
			}
			if pinned, want := reopened.pinnedDigest("files", "read_file"), Digest(tool.Definition()); pinned != want {
				t.Errorf("pinned %s after the call, want the new digest %s", pinned, want)
			}
		})
	}
}
