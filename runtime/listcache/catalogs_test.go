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

func TestCatalogRoundTrip(t *testing.T) {
	c := &Catalogs{Dir: Dir{Path: t.TempDir()}}
	c.Store("k", &Catalog{ServerName: "srv", ServerVersion: "1.2", Tools: []*mcp.Tool{{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}}})
	got, ok := c.Load("k")
	if !ok {
		t.Fatal("a stored catalog was a miss")
	}
	if got.ServerName != "srv" || got.ServerVersion != "1.2" || len(got.Tools) != 1 || got.Tools[0].Name != "echo" {
		t.Fatalf("got %+v", got)
	}
	if _, ok := c.Load("other"); ok {
		t.Error("another key was served")
	}
	// The key (which may hold a command line) is never written.
	ents, _ := os.ReadDir(c.Path)
	raw, _ := os.ReadFile(filepath.Join(c.Path, ents[0].Name()))
	if strings.Contains(string(raw), `"k"`) {
		t.Errorf("the key is in the file: %s", raw)
	}
}

// Files the host reads back are input: a tampered, renamed, future-dated
// or too old catalog is a miss.
func TestHostileCatalogIsAMiss(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := &Catalogs{Dir: Dir{Path: t.TempDir(), Now: func() time.Time { return now }}}
	tools := []*mcp.Tool{{Name: "echo"}}
	for name, mutate := range map[string]func(path string){
		"garbage":  func(p string) { _ = os.WriteFile(p, []byte("{not json"), 0o600) },
		"trailing": func(p string) { b, _ := os.ReadFile(p); _ = os.WriteFile(p, append(b, "{}"...), 0o600) },
		"other key": func(p string) {
			_ = os.WriteFile(p, []byte(`{"key":"00","saved_at":"2027-01-15T08:00:00Z","tools":[]}`), 0o600)
		},
		"nameless": func(p string) {
			b, _ := os.ReadFile(p)
			_ = os.WriteFile(p, []byte(strings.Replace(string(b), `"name":"echo"`, `"name":""`, 1)), 0o600)
		},
		"deep": func(p string) { _ = os.WriteFile(p, append([]byte(`{"a":`), nested(100_000)...), 0o600) },
		"oversized": func(p string) {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			_ = f.Truncate(MaxFileBytes + 1)
			_ = f.Close()
		},
		"future":      func(p string) { rewriteSaved(t, p, now.Add(time.Hour)) },
		"too old":     func(p string) { rewriteSaved(t, p, now.Add(-MaxCatalogAge-time.Hour)) },
		"never saved": func(p string) { rewriteSaved(t, p, time.Time{}) },
	} {
		c.Store("k", &Catalog{Tools: tools})
		if _, ok := c.Load("k"); !ok {
			t.Fatalf("%s: the fresh catalog was a miss", name)
		}
		mutate(c.file(hashKey("k")))
		if got, ok := c.Load("k"); ok {
			t.Errorf("%s: served %d tools", name, len(got.Tools))
		}
	}
}

func rewriteSaved(t *testing.T, path string, at time.Time) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	e["saved_at"] = at
	raw, _ = json.Marshal(e)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The directory is bounded: past MaxEntries the oldest files go.
func TestCatalogsPruneOldest(t *testing.T) {
	c := &Catalogs{Dir: Dir{Path: t.TempDir()}, MaxEntries: 3}
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		c.Store(k, &Catalog{Tools: []*mcp.Tool{{Name: "t"}}})
		// Distinct modification times, oldest first.
		_ = os.Chtimes(c.file(hashKey(k)), time.Now(), time.Now().Add(time.Duration(i-10)*time.Minute))
	}
	ents, _ := os.ReadDir(c.Path)
	if len(ents) != 3 {
		t.Fatalf("%d files kept, want 3", len(ents))
	}
	if _, ok := c.Load("a"); ok {
		t.Error("the oldest catalog was kept")
	}
	if _, ok := c.Load("e"); !ok {
		t.Error("the newest catalog was pruned")
	}
}

// Instructions over the bound are cut when kept, on a character boundary.
func TestCatalogInstructionsCut(t *testing.T) {
	c := &Catalogs{Dir: Dir{Path: t.TempDir()}}
	c.Store("k", &Catalog{Instructions: strings.Repeat("é", MaxInstructionsBytes), Tools: []*mcp.Tool{{Name: "t"}}})
	got, ok := c.Load("k")
	if !ok || len(got.Instructions) > MaxInstructionsBytes || !strings.HasPrefix(got.Instructions, "éé") || strings.ContainsRune(got.Instructions, 0xFFFD) {
		t.Fatalf("ok %v, %d bytes kept", ok, len(got.Instructions))
	}
}

// A server name over the bound is dropped, not kept.
func TestCatalogLongServerNameDropped(t *testing.T) {
	c := &Catalogs{Dir: Dir{Path: t.TempDir()}}
	c.Store("k", &Catalog{ServerName: strings.Repeat("x", maxNameBytes+1), Tools: []*mcp.Tool{{Name: "t"}}})
	got, ok := c.Load("k")
	if !ok || got.ServerName != "" {
		t.Fatalf("got %+v, %v", got, ok)
	}
}
