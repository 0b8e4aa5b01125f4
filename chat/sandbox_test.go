package chat

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// /mcp <id> shows a stdio server's sandbox on one line, the policy's
// paths (which a project file may write) escaped.
func TestDetailShowsSandbox(t *testing.T) {
	d := protocol.ServerDetail{ServerStatus: protocol.ServerStatus{ID: "files", Status: "ready",
		Sandbox: &protocol.SandboxStatus{Status: "active", Detail: "Landlock ABI 7", Summary: "strict: reads system, own files, /data\x1b]0;PWNED\x07; writes temp; network none"}}}
	cleanDetail(&d)
	out := renderDetail(d)
	if !strings.Contains(out, "sandbox:           active (Landlock ABI 7); strict: reads system, own files, /data") {
		t.Errorf("detail:\n%s", out)
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\x07") {
		t.Errorf("detail holds controls: %q", out)
	}
}
