package e2e_test

import (
	"encoding/json"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// failingStderrServer is a stdio server that writes a line to stderr and
// exits at start.
var failingStderrServer = map[string]any{"transport": "stdio", "command": "sh", "args": []string{"-c", "echo boom-marker >&2; exit 3"}}

// stderrSection returns what follows "stderr (tail):" in a command's
// output, up to the next line that is not indented; "" when there is none.
func stderrSection(out string) string {
	_, after, ok := strings.Cut(out, "stderr (tail):\n")
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// A server whose process exits during start shows its stderr tail (issue
// 36) where the docs promise one: host mcp get (text and --json's
// "stderr"), host mcp test, and mcp.get over the protocol. Before, only a
// live session's tail was shown: the line appeared only inside last_error.
func TestFailedStartShowsStderrTail(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the server is a sh script")
	}
	h := newHostCLI(t)
	writeJSONFile(t, h.global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"dies": failingStderrServer}}})

	out, errOut, code := h.run(t, nil, "mcp", "get", "dies")
	t.Logf("host mcp get dies (exit %d):\n%s%s", code, out, errOut)
	if code == 0 {
		t.Errorf("host mcp get of a server that cannot start: exit 0")
	}
	if !strings.Contains(stderrSection(out), "  boom-marker\n") {
		t.Errorf("host mcp get prints no stderr tail with the server's line:\n%s", out)
	}

	out, _, _ = h.run(t, nil, "mcp", "get", "--json", "dies")
	var d struct {
		State  string `json:"state"`
		Stderr string `json:"stderr"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("host mcp get --json: %v\n%s", err, out)
	}
	if d.State != "error" || !strings.Contains(d.Stderr, "boom-marker") {
		t.Errorf("host mcp get --json: state %q, stderr %q; want error and the server's line", d.State, d.Stderr)
	}

	out, _, code = h.run(t, nil, "mcp", "test", "dies")
	if code == 0 || !strings.Contains(stderrSection(out), "  boom-marker\n") {
		t.Errorf("host mcp test (exit %d) prints no stderr tail with the server's line:\n%s", code, out)
	}

	config := filepath.Join(t.TempDir(), "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"dies": failingStderrServer}}})
	s := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"})
	ctx := ctxT(t, time.Minute)
	if _, err := s.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-stderr"}}); err != nil {
		t.Fatal(err)
	}
	var got *protocol.MCPGetResult
	waitFor(t, 30*time.Second, "dies in error", func() bool {
		r, err := s.rt.MCPGet(ctx, &protocol.ServerParams{ID: "dies"})
		got = r
		return err == nil && r.Server.State == protocol.StateError
	})
	if !strings.Contains(got.Server.Stderr, "boom-marker") {
		t.Errorf("mcp.get: stderr %q, want the server's line (last_error %q)", got.Server.Stderr, got.Server.LastError)
	}
}
