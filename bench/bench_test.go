package bench

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if RunChild() {
		return
	}
	os.Exit(m.Run())
}

// TestSmoke runs every measurement of `make bench` once, tiny, and checks
// that the table has every row. It asserts no timing.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/host and starts servers and node; skipped with -short")
	}
	tab, err := Run(context.Background(), Smoke(".."))
	if err != nil {
		t.Fatal(err)
	}
	md := tab.Markdown()
	t.Logf("\n%s", md)
	want := []string{
		"raw HTTP floor", "bare go-sdk ClientSession.CallTool", "mcp-host session",
		"mcp-host Manager + adapter + gate (allow rule)", "TypeScript SDK",
		"bare go-sdk connect + list", "mcp-host Manager connect + list + adapt",
		"bare go-sdk (connect + tools/list each)", "mcp-host Manager (all ready)",
		"one-shot go-sdk program", "host mcp call (HTTP, --yes), empty list cache", "host mcp call, the tool list fresh", "host version",
		"stdio server start + initialize, no sandbox", "the same, default sandbox", "the same, strict sandbox",
	}
	for _, w := range want {
		if !strings.Contains(md, "| "+w) {
			t.Errorf("the table has no row %q", w)
		}
	}
	for _, r := range tab.Calls {
		if r.Note != "" {
			if os.Getenv("E2E_REQUIRED") == "1" {
				t.Errorf("%s: %s", r.Path, r.Note)
			} else {
				t.Logf("SKIPPED ROW %s: %s", r.Path, r.Note)
			}
			continue
		}
		if r.Seq <= 0 || r.Par <= 0 {
			t.Errorf("%s: ratios %v and %v, want positive", r.Path, r.Seq, r.Par)
		}
		if strings.HasPrefix(r.Path, "TypeScript") != (r.Allocs < 0) {
			t.Errorf("%s: allocations %v: want them for the Go paths only", r.Path, r.Allocs)
		}
	}
	// bench/node is installed by make bench only: without it the lazy
	// rows say so (not a failure of make test).
	if tab.LazyNote != "" {
		t.Logf("SKIPPED LAZY ROWS: %s", tab.LazyNote)
	} else if len(tab.Lazy) != 5 || !strings.Contains(md, "| catalog offered, warm cache") {
		t.Errorf("lazy rows: %d, want 5", len(tab.Lazy))
	}
	if len(tab.Calls) != 5 || len(tab.Catalog) != 4 || len(tab.Many) != 2 || len(tab.OneShot) != 4 || len(tab.Sandbox) != 3 {
		t.Errorf("rows: %d calls, %d catalog, %d servers, %d one-shot, %d sandbox; want 5, 4, 2, 4, 3", len(tab.Calls), len(tab.Catalog), len(tab.Many), len(tab.OneShot), len(tab.Sandbox))
	}
	for _, r := range tab.Sandbox {
		if r.Note != "" {
			t.Logf("SKIPPED ROW %s: %s", r.Start, r.Note)
		} else if r.Ratio <= 0 {
			t.Errorf("%s: ratio %v, want positive", r.Start, r.Ratio)
		}
	}
}

func TestMedianAndRotate(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median of 3, 1, 2 = %v", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median of 4, 1, 2, 3 = %v", m)
	}
	if m := median(nil); m != 0 {
		t.Errorf("median of none = %v", m)
	}
	got := [][]int{rotate(3, 0), rotate(3, 1), rotate(3, 5)}
	want := [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}
	for i := range got {
		for j := range got[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("rotate: %v, want %v", got, want)
			}
		}
	}
}

// TestSandboxSection runs the sandbox section alone, tiny: its three rows
// are there, measured where the OS has a sandbox. It asserts no timing.
func TestSandboxSection(t *testing.T) {
	if testing.Short() {
		t.Skip("starts stdio servers; skipped with -short")
	}
	cfg := Smoke("..")
	cfg.Only = "sandbox"
	tab, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	md := tab.Markdown()
	t.Logf("\n%s", md)
	for _, w := range []string{"stdio server start + initialize, no sandbox", "the same, default sandbox", "the same, strict sandbox"} {
		if !strings.Contains(md, "| "+w+" |") {
			t.Errorf("the table has no row %q", w)
		}
	}
	for _, r := range tab.Sandbox {
		if r.Note == "" && r.Ratio <= 0 {
			t.Errorf("%s: ratio %v, want positive", r.Start, r.Ratio)
		}
	}
}
