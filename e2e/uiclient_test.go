package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// TestUIClientFromTheDoc runs e2e/uiclient/uiclient.mjs, a UI written from
// protocol/PROTOCOL.md alone (Node, through the generated @mcp-host/client), against the
// built host serve with server-everything: the handshake, statuses, tools,
// a streamed run, an allowed, a denied and a cancelled tool call, a
// confirm that times out, direct tool calls, an allow rule, resource
// links, an elicitation answered twice, error answers,
// disable/enable/reconnect and shutdown, each
// checked against what the doc says. A failure is a place where the doc
// and the runtime disagree: fix the one that is wrong (issue 13).
func TestUIClientFromTheDoc(t *testing.T) {
	node := testenv.Node(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	host := buildHost(t)
	script := filepath.Join(testenv.RepoRoot(t), "e2e", "uiclient", "uiclient.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := append([]string{script, host}, everything...)
	cmd := exec.CommandContext(ctx, node, append(args, "stdio")...)
	// A cache of its own: with a catalog kept by an earlier run the server
	// would start idle (the doc's lazy start), not connecting.
	cmd.Env = append(os.Environ(), "MCP_HOST_TOKEN_STORE=file", "MCP_HOST_CACHE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "uiclient: PASS") {
		t.Fatalf("the UI written from PROTOCOL.md failed (%v):\n%s", err, out)
	}
	t.Logf("%s", out)
}
