package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestGoClient runs the example against a freshly built host serve: the
// scripted model calls the word_count tool of the demo's stdio server,
// the confirm is allowed, and the run's final answer depends on the
// tool's result.
func TestGoClient(t *testing.T) {
	host := buildHost(t)
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "config.json"), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"local": map[string]any{"transport": "stdio", "command": host, "args": []string{"demo-stdio-server"}},
	}}})
	writeJSON(t, filepath.Join(dir, "script.json"), []map[string]any{
		{"calls": []map[string]any{{"name": "local/word_count", "arguments": map[string]any{"text": "one two three"}}}},
		{"when_result_contains": "3 words", "text": "The text has 3 words."},
		{"text": "The count did not come back."},
	})

	var mu sync.Mutex
	var confirms []protocol.ConfirmParams
	var out, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	final, err := run(ctx, options{
		Host:  host,
		Serve: []string{"--script", filepath.Join(dir, "script.json"), "--permissions", filepath.Join(dir, "permissions.json")},
		Env: append(os.Environ(), "MCP_HOST_CONFIG="+filepath.Join(dir, "config.json"), "MCP_HOST_SERVERS=",
			"MCP_HOST_TOKEN_STORE=file", "MCP_HOST_CACHE_DIR="+t.TempDir()),
		Dir:    dir,
		Prompt: "How many words are in: one two three?",
		Confirm: func(p *protocol.ConfirmParams) protocol.ConfirmResult {
			mu.Lock()
			defer mu.Unlock()
			confirms = append(confirms, *p)
			return protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}
		},
		Out:    &out,
		Stderr: &stderr,
	})
	t.Logf("goclient (%v):\n%s", time.Since(start).Round(time.Millisecond), out.String())
	if err != nil {
		t.Fatalf("run: %v\nhost serve stderr:\n%s", err, stderr.String())
	}
	if final.Status != protocol.RunCompleted || final.Text != "The text has 3 words." {
		t.Errorf("final event: %s %q (%s%s), want completed %q", final.Status, final.Text, final.Reason, final.Error, "The text has 3 words.")
	}
	if len(confirms) != 1 || confirms[0].Kind != "tool_call" || confirms[0].RunID != final.RunID ||
		confirms[0].Tool == nil || confirms[0].Tool.Server != "local" || confirms[0].Tool.Tool != "word_count" {
		t.Errorf("confirms: %+v, want one for local/word_count in run %s", confirms, final.RunID)
	}
	for _, want := range []string{"protocol " + protocol.Version, "server local (stdio): ready, 2 tools", "→ local/word_count", "← 3 words", "run " + final.RunID + " completed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
}

// buildHost builds cmd/host and, beside it, the sandbox's helper
// cmd/host-confine (the demo's stdio server runs confined), or returns
// $E2E_HOST_BIN, a host built elsewhere. A host that cannot be built
// skips the test loudly, and fails it when E2E_REQUIRED=1 (as make test
// runs).
func buildHost(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("E2E_HOST_BIN"); bin != "" {
		return bin
	}
	if testing.Short() {
		t.Skip("GOCLIENT EXAMPLE SKIPPED: -short: it builds cmd/host")
	}
	dir := t.TempDir()
	// The helper is static, as the e2e tests and make release build it.
	for _, b := range []struct{ pkg, env string }{{"host", ""}, {"host-confine", "CGO_ENABLED=0"}} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b.pkg), "../../cmd/"+b.pkg)
		cmd.Env = os.Environ()
		if b.env != "" {
			cmd.Env = append(cmd.Env, b.env)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			if os.Getenv("E2E_REQUIRED") == "1" {
				t.Fatalf("go build ./cmd/%s: %v\n%s", b.pkg, err, out)
			}
			t.Skipf("GOCLIENT EXAMPLE SKIPPED: cannot build ./cmd/%s: %v\n%s(set E2E_REQUIRED=1 to make this a failure)", b.pkg, err, out)
		}
	}
	return filepath.Join(dir, "host")
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
