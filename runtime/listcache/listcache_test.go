package listcache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func tools(names ...string) []*mcp.Tool {
	var out []*mcp.Tool
	for _, n := range names {
		out = append(out, &mcp.Tool{Name: n, InputSchema: map[string]any{"type": "object"}})
	}
	return out
}

// A catalog is served while fresh, under its key only, and never after its
// TTL; the key itself (which holds expanded secrets) never reaches disk.
func TestStoreLoadExpire(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	d := &Dir{Path: filepath.Join(t.TempDir(), "tools"), Now: func() time.Time { return now }}
	key := "files\x00{\"headers\":{\"Authorization\":\"Bearer s3cret-token\"}}\x002026-07-28"
	d.Store(key, tools("read", "write"), time.Minute)
	got, ok := d.Load(key)
	if !ok || len(got) != 2 || got[0].Name != "read" {
		t.Fatalf("Load = %v, %v; want the two tools", got, ok)
	}
	if _, ok := d.Load(key + "x"); ok {
		t.Error("another key was served")
	}
	files, _ := os.ReadDir(d.Path)
	for _, f := range files {
		raw, _ := os.ReadFile(filepath.Join(d.Path, f.Name()))
		if strings.Contains(string(raw), "s3cret") || strings.Contains(string(raw), "Authorization") {
			t.Errorf("%s holds the key: %s", f.Name(), raw)
		}
		if info, _ := f.Info(); info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is readable by others: %v", f.Name(), info.Mode())
		}
	}
	now = now.Add(time.Minute)
	if _, ok := d.Load(key); ok {
		t.Error("served after its TTL")
	}
	if files, _ := os.ReadDir(d.Path); len(files) != 0 {
		t.Errorf("an expired file stays: %v", files)
	}
}

// Forget, a zero TTL, a tampered file and a file of another key are misses.
func TestMisses(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	d.Store("a", tools("x"), time.Hour)
	d.Forget("a")
	if _, ok := d.Load("a"); ok {
		t.Error("served after Forget")
	}
	d.Store("b", tools("x"), 0)
	if _, ok := d.Load("b"); ok {
		t.Error("a zero TTL was kept")
	}
	d.Store("c", tools("x"), time.Hour)
	f := d.file(hashKey("c"))
	if err := os.WriteFile(f, []byte(`{"key":"`+hashKey("other")+`","expires_at":"2999-01-01T00:00:00Z","tools":[{"name":"evil"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := d.Load("c"); ok {
		t.Errorf("a file naming another key was served: %v", got)
	}
	if err := os.WriteFile(f, []byte(`{not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Load("c"); ok {
		t.Error("an unreadable file was served")
	}
}

// Kept schemas come back raw, byte for byte, and a tool without an output
// schema has none.
func TestSchemasComeBackRaw(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	in := []*mcp.Tool{
		{Name: "a", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`), OutputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "b", InputSchema: map[string]any{"type": "object"}},
	}
	d.Store("k", in, time.Hour)
	got, ok := d.Load("k")
	if !ok || len(got) != 2 {
		t.Fatalf("Load = %v, %v", got, ok)
	}
	if raw, ok := got[0].InputSchema.(json.RawMessage); !ok || string(raw) != `{"type":"object","properties":{"x":{"type":"string"}}}` {
		t.Errorf("input schema came back as %T %v", got[0].InputSchema, got[0].InputSchema)
	}
	if raw, ok := got[0].OutputSchema.(json.RawMessage); !ok || string(raw) != `{"type":"object"}` {
		t.Errorf("output schema came back as %T %v", got[0].OutputSchema, got[0].OutputSchema)
	}
	if got[1].OutputSchema != nil {
		t.Errorf("a tool without an output schema came back with %v", got[1].OutputSchema)
	}
}
