package listcache

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/internal/statefile"
)

// plant writes a cache file for key as a hostile hand would: a valid key,
// expiry expires, one tool whose inputSchema is schema.
func plant(t testing.TB, d *Dir, key string, expires time.Time, schema []byte) {
	t.Helper()
	hash := hashKey(key)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"key":%q,"expires_at":%q,"tools":[{"name":"deep","inputSchema":`, hash, expires.Format(time.RFC3339Nano))
	b.Write(schema)
	b.WriteString(`}]}`)
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.file(hash), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// nested returns n arrays nested in one another.
func nested(n int) []byte {
	return append(bytes.Repeat([]byte{'['}, n), bytes.Repeat([]byte{']'}, n)...)
}

// A file the host reads back is input: a tool nesting millions of arrays
// is a miss, not a stack overflow that kills the host on every start.
func TestDeeplyNestedEntryIsAMiss(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	plant(t, d, "k", time.Now().Add(time.Hour), nested(3_000_000))
	if tools, ok := d.Load("k"); ok {
		t.Fatalf("served %d tools of a 3,000,000-deep entry", len(tools))
	}
	// Nesting within encoding/json's own depth is still served.
	plant(t, d, "k", time.Now().Add(time.Hour), []byte(`{"type":"object","properties":{"a":{"type":"array","items":[[[1]]]}}}`))
	if _, ok := d.Load("k"); !ok {
		t.Error("a plainly nested entry was a miss")
	}
}

// An expiry further than MaxTTL away was not written by a host (Store caps
// the TTL): the entry is a miss and its file removed.
func TestFarFutureEntryIsAMiss(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	d := &Dir{Path: t.TempDir(), Now: func() time.Time { return now }}
	plant(t, d, "k", now.Add(100*365*24*time.Hour), []byte(`{"type":"object"}`))
	if _, ok := d.Load("k"); ok {
		t.Fatal("an entry expiring in a hundred years was served")
	}
	if _, err := os.Stat(d.file(hashKey("k"))); !os.IsNotExist(err) {
		t.Errorf("the far-future file stays: %v", err)
	}
	plant(t, d, "k", now.Add(MaxTTL), []byte(`{"type":"object"}`))
	if _, ok := d.Load("k"); !ok {
		t.Error("an entry within MaxTTL was a miss")
	}
	// Store caps a longer TTL to MaxTTL.
	d.Store("long", tools("x"), 1000*time.Hour)
	now = now.Add(MaxTTL)
	if _, ok := d.Load("long"); ok {
		t.Error("Store kept an entry past MaxTTL")
	}
}

// FuzzLoad: whatever a cache file holds, Load returns (no crash, no stack
// overflow), and what it serves has names and came from an entry for the
// key that expires within MaxTTL.
func FuzzLoad(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	hash := hashKey("k")
	entry := func(expires time.Time, tools string) []byte {
		return fmt.Appendf(nil, `{"key":%q,"expires_at":%q,"tools":%s}`, hash, expires.Format(time.RFC3339Nano), tools)
	}
	f.Add(entry(now.Add(time.Hour), `[{"name":"a","inputSchema":{"type":"object"}}]`))
	f.Add(entry(now.Add(time.Hour), `[{"name":"a","inputSchema":`+string(nested(20_000))+`}]`))
	f.Add(entry(now.Add(1000*time.Hour), `[{"name":"a"}]`))
	f.Add(entry(now.Add(time.Hour), `[{"inputSchema":{}}]`))
	f.Add(entry(now.Add(time.Hour), `[{"name":"a","outputSchema":"x"}]`))
	f.Add([]byte(`{"key":"x","tools":null}`))
	f.Add([]byte(`[[[[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &Dir{Path: t.TempDir(), Now: func() time.Time { return now }}
		if err := os.WriteFile(d.file(hash), data, 0o600); err != nil {
			t.Fatal(err)
		}
		tools, ok := d.Load("k")
		if !ok {
			return
		}
		for _, tl := range tools {
			if tl == nil || tl.Name == "" {
				t.Fatalf("served a tool without a name: %+v", tl)
			}
		}
		if statefile.CheckDepth(data, statefile.MaxDepth) != nil {
			t.Fatal("served an entry nested too deep")
		}
	})
}
