package session_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 5 MB text result from a stdio server costs the session and the SDK
// together under 18 times its size in allocations (the SDK decoding the
// whole answer cost about 20 times, the line filter ten more before it
// was trimmed), and arrives whole.
func TestStdioBigResultAllocatesLittle(t *testing.T) {
	const size = 5 << 20
	s := connect(t, stdioOptions(t, nil))
	call := func() uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := s.CallTool(context.Background(), "big", map[string]any{"bytes": size})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(res.Content[0].(*mcp.TextContent).Text); n != size/100*100 {
			t.Fatalf("result of %d bytes", n)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	call() // the SDK's reader keeps its buffer from the first
	alloc := call()
	t.Logf("%d bytes allocated for a %d-byte result", alloc, size)
	if alloc > 18*size {
		t.Errorf("%d bytes allocated for a %d-byte result, want under 18 times it", alloc, size)
	}
}
