package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// TestUIClientsOfOlderVersions runs the doc-written UI client as it was
// at each older protocol version of the window (e2e/uiclient/versions,
// kept from the git history unchanged) against today's host serve: the
// runtime negotiates that version and serves it as it was, so every flow
// of the older UI completes (issue 34). A kept client of a version that
// has left the window must be removed with it; one the window still
// holds cannot be dropped.
func TestUIClientsOfOlderVersions(t *testing.T) {
	node := testenv.Node(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	host := buildHost(t)
	clients, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "e2e", "uiclient", "versions", "*.mjs"))
	if len(clients) < 2 {
		t.Fatalf("kept UI clients: %v, want the two versions before %s", clients, protocol.Version)
	}
	for _, script := range clients {
		version := strings.TrimSuffix(filepath.Base(script), ".mjs")
		t.Run(version, func(t *testing.T) {
			if !slices.Contains(protocol.Versions, version) {
				t.Fatalf("a kept UI client of %s, which the runtime no longer speaks (%v): remove it with its version", version, protocol.Versions)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			args := append([]string{script, host}, everything...)
			cmd := exec.CommandContext(ctx, node, append(args, "stdio")...)
			cmd.Env = append(os.Environ(), "MCP_HOST_TOKEN_STORE=file", "MCP_HOST_CACHE_DIR="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "uiclient: PASS") {
				t.Fatalf("the UI of protocol %s failed against today's host (%v):\n%s", version, err, out)
			}
		})
	}
}
