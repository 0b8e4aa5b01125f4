package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPersistenceRoundTrip: "always" answers survive a restart (a new
// store and gate over the same file), in a 0600 file.
func TestPersistenceRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "project", ".mcp-host", "permissions.json")
	tool := newTool(t, "gh", &mcp.Tool{Name: "create_issue", Description: "Creates an issue."})
	other := newTool(t, "fs", &mcp.Tool{Name: "read"})

	store, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{answers: []Response{{Answer: AllowTool}, {Answer: AllowServer}}}
	g := mustGate(t, Options{Store: store, Confirmer: rec})
	for _, tl := range []*adapter.Tool{tool, other} {
		if v, err := g.Check(context.Background(), tl, args); err != nil || !v.Allow || v.Warning != "" {
			t.Fatalf("%+v %v", v, err)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	var onDisk fileData
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &onDisk); err != nil {
		t.Fatalf("file is not JSON: %v\n%s", err, b)
	}
	if onDisk.Version != storeVersion || onDisk.Servers["gh"].Tools["create_issue"] != Digest(tool.Definition()) || !onDisk.Servers["fs"].AllTools {
		t.Errorf("file = %s", b)
	}

	// Restart: a new store and gate, a confirmer that must not be asked.
	store2, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	rec2 := &recorder{}
	g2 := mustGate(t, Options{Store: store2, Confirmer: rec2})
	fresh := newTool(t, "gh", &mcp.Tool{Name: "create_issue", Description: "Creates an issue."})
	anyFS := newTool(t, "fs", &mcp.Tool{Name: "write", Description: "new tool"})
	for _, tl := range []*adapter.Tool{fresh, other, anyFS} {
		if v, err := g2.Check(context.Background(), tl, args); err != nil || v.By != ByRemembered {
			t.Errorf("after restart, %s/%s: %+v %v", tl.Server(), tl.ToolName(), v, err)
		}
	}
	if rec2.asked() != 0 {
		t.Errorf("asked %d times after restart", rec2.asked())
	}

	// Revoke brings the question back.
	if _, err := store2.Revoke("gh", "create_issue"); err != nil {
		t.Fatal(err)
	}
	if _, err := store2.Revoke("fs", ""); err != nil {
		t.Fatal(err)
	}
	store3, _ := OpenStore(path)
	if ok, _ := store3.Lookup("gh", "create_issue", Digest(tool.Definition())); ok {
		t.Error("forgotten tool still allowed")
	}
	if ok, _ := store3.Lookup("fs", "read", "x"); ok {
		t.Error("forgotten server still allowed")
	}
}

// TestStoreMergesOtherWriters: two processes (two stores) answering at the
// same time keep both answers.
func TestStoreMergesOtherWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.json")
	a, _ := OpenStore(path)
	b, _ := OpenStore(path)
	if err := a.AllowTool("s", "one", "d1"); err != nil {
		t.Fatal(err)
	}
	if err := b.AllowTool("s", "two", "d2"); err != nil {
		t.Fatal(err)
	}
	c, _ := OpenStore(path)
	for tool, d := range map[string]string{"one": "d1", "two": "d2"} {
		if ok, _ := c.Lookup("s", tool, d); !ok {
			t.Errorf("answer for %s lost", tool)
		}
	}
	if ok, changed := c.Lookup("s", "one", "other"); ok || !changed {
		t.Errorf("other digest: ok=%v changed=%v", ok, changed)
	}
}

func TestStoreBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"garbage.json": "{not json",
		"future.json":  `{"version":3,"servers":{}}`,
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o600)
		if _, err := OpenStore(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
	}
	// A store whose file went bad refuses to overwrite it, and the gate
	// still honours the user's answer for this call.
	path := filepath.Join(dir, "p.json")
	s, _ := OpenStore(path)
	os.WriteFile(path, []byte("{broken"), 0o600)
	var warned []string
	g := mustGate(t, Options{Store: s, Confirmer: &recorder{answers: []Response{{Answer: AllowTool}}}, Warn: func(m string) { warned = append(warned, m) }})
	v, err := g.Check(context.Background(), newTool(t, "s", &mcp.Tool{Name: "t"}), args)
	if err != nil || !v.Allow || !strings.Contains(v.Warning, path) || len(warned) != 1 {
		t.Errorf("%+v %v %q", v, err, warned)
	}
	if b, _ := os.ReadFile(path); string(b) != "{broken" {
		t.Errorf("bad file overwritten: %s", b)
	}
}
