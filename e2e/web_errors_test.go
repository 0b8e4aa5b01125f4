package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// TestWebRunErrorShownOnce: a run that fails shows its error once. The
// runtime says why a run failed three times (the error event, the final
// event and run.status); before, the page wrote the error event's and the
// final event's copy, one under the other.
func TestWebRunErrorShownOnce(t *testing.T) {
	t.Parallel()          // waits on processes most of its time (package doc: Parallel tests)
	testenv.Playwright(t) // a missing chromium skips (or fails) before host web starts
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{}}})
	const failure = "the model backend is over its quota"
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{{"error": failure}})
	w := startWeb(t, config, script)

	var r struct {
		Run, Log string
		Errors   []string
	}
	runBrowserScript(t, "web-errors.mjs", w.address, &r)
	if n := strings.Count(r.Log, failure); n != 1 {
		t.Errorf("the page shows the run's error %d times; want once:\n%s", n, r.Log)
	}
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], failure) {
		t.Errorf("error lines in the page: %q; want one, with %q", r.Errors, failure)
	}
}
