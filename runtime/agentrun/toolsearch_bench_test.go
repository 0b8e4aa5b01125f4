package agentrun

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcp-host/mcp-host/core/scripted"
)

// BenchmarkSearchModeRun10k is what search mode adds to the start of a
// run over 10,000 tools once the index is built: measuring the catalog
// against the budget and recognising it as the indexed one.
func BenchmarkSearchModeRun10k(b *testing.B) {
	snap := snapshotOf(b, "s", bigTools(10_000), &recordingCaller{})
	a := &Agent{}
	tools := snap.CoreTools()
	a.searchMode(snap, tools, scripted.New()) // builds the index
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, info := a.searchMode(snap, tools, scripted.New()); info == nil {
			b.Fatal("not in search mode")
		}
	}
	if a.ts.builds != 1 {
		b.Fatalf("%d index builds", a.ts.builds)
	}
}

// BenchmarkSearchToolCall10k is one mcp_tool_search call over 10,000
// tools, answer included.
func BenchmarkSearchToolCall10k(b *testing.B) {
	snap := snapshotOf(b, "s", bigTools(10_000), &recordingCaller{})
	all, _, _ := (&Agent{}).searchMode(snap, snap.CoreTools(), scripted.New())
	args := json.RawMessage(`{"query":"refund a card payment","limit":5}`)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res, err := all[0].Call(context.Background(), args); err != nil || res.IsError {
			b.Fatal(err)
		}
	}
}
