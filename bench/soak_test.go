package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSoakSmoke runs the soak section tiny: every kind of work once or a
// few times against a real host serve, the samples taken and every bound
// checked (they hold or the run fails). It asserts no timing; the soak
// itself (`make bench BENCH_FLAGS='-only soak'`) is not part of make test.
func TestSoakSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/host and starts node servers; skipped with -short")
	}
	if _, _, err := nodeAndModules(".."); err != nil {
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatalf("E2E REQUIRED but missing: %v", err)
		}
		t.Skipf("E2E SKIPPED: %v", err)
	}
	cfg := Smoke("..")
	cfg.Only = "soak"
	cfg.Soak = SoakConfig{Calls: 400, Parallel: 4, Reconnects: 10, Crashes: 2, Refreshes: 1, Runs: 5, Lazy: 1,
		TokenLife: 2 * time.Second, Sample: 500 * time.Millisecond}
	tab, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	md := tab.Markdown()
	t.Logf("\n%s", md)
	for _, w := range []string{"| RSS after the run |", "| processes left after it stopped | 0 | 0 | ok |", "| work done |"} {
		if !strings.Contains(md, w) {
			t.Errorf("the soak table has no %q", w)
		}
	}
}
