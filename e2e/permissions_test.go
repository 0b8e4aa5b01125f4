package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestPermissionsRememberListRevoke: an "always allow" answered in host
// serve is listed by the built binary's `host mcp permissions` (server,
// tool, scope, when) and over the protocol (mcp.permissions.list); revoked
// by the CLI while host serve runs, or by mcp.permissions.revoke, the next
// call of the tool asks again. Nothing to revoke names the server and tool.
func TestPermissionsRememberListRevoke(t *testing.T) {
	g := startGaps(t, protocol.UICapabilities{Confirm: true}, nil)
	perms := protocol.NewPermissionsCaller(g.conn)
	ctx := ctxT(t, 2*time.Minute)
	asked := func() int {
		g.ui.mu.Lock()
		defer g.ui.mu.Unlock()
		return len(g.ui.confirms)
	}
	echo := func(want string) {
		t.Helper()
		before := asked()
		r, err := g.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)})
		if err != nil {
			t.Fatalf("echo: %v", err)
		}
		if got := map[bool]string{true: "asked", false: "not asked"}[asked() > before]; got != want || (want == "not asked" && r.DecidedBy != "remembered answer") {
			t.Fatalf("echo: %s (decided by %q), want %s", got, r.DecidedBy, want)
		}
	}
	g.ui.setAnswer(answerWith(protocol.AnswerAlwaysTool))
	echo("asked")
	echo("not asked")

	// The CLI, a process of its own, lists the answer and revokes it.
	cli := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(buildHost(t), append(append([]string{"mcp", "permissions"}, args...), "--permissions", filepath.Join(g.dir, "permissions.json"))...)
		cmd.Dir = g.dir
		cmd.Env = append(os.Environ(), "MCP_HOST_CONFIG="+g.config, "MCP_HOST_SERVERS=")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
	}
	out, errOut, code := cli("--json")
	var listed protocol.PermissionsListResult
	if code != 0 || json.Unmarshal([]byte(out), &listed) != nil || len(listed.Answers) != 1 {
		t.Fatalf("permissions --json: code %d\n%s%s", code, out, errOut)
	}
	if a := listed.Answers[0]; a.Server != "everything" || a.Tool != "echo" || a.Scope != protocol.ScopeTool || !a.Current || time.Since(a.AllowedAt) > time.Hour || a.AllowedAt.After(time.Now()) {
		t.Errorf("listed %+v", a)
	}
	out, _, code = cli()
	if code != 0 || !strings.Contains(out, "SERVER") || !strings.Contains(out, "everything") || !strings.Contains(out, "echo") || !strings.Contains(out, "tool (this definition)") {
		t.Errorf("permissions: code %d\n%s", code, out)
	}
	if _, errOut, code = cli("revoke", "everything", "nope"); code != 2 || !strings.Contains(errOut, `tool "nope" of server "everything"`) {
		t.Errorf("revoke an unknown tool: code %d, %q", code, errOut)
	}
	if _, errOut, code = cli("revoke", "nobody"); code != 2 || !strings.Contains(errOut, `server "nobody"`) {
		t.Errorf("revoke an unknown server: code %d, %q", code, errOut)
	}
	if out, errOut, code = cli("revoke", "everything", "echo"); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: code %d\n%s%s", code, out, errOut)
	}
	// The running host serve asks again.
	g.ui.setAnswer(answerWith(protocol.AnswerAlwaysServer))
	echo("asked")
	echo("not asked")

	// Over the protocol.
	l, err := perms.MCPPermissionsList(ctx, &protocol.PermissionsListParams{Server: "everything"})
	if err != nil || len(l.Answers) != 1 || l.Answers[0].Scope != protocol.ScopeServer || l.Answers[0].Tool != "" || !l.Answers[0].Current || l.File == "" {
		t.Fatalf("mcp.permissions.list: %+v %v", l, err)
	}
	_, err = perms.MCPPermissionsRevoke(ctx, &protocol.PermissionsRevokeParams{Server: "everything", Tool: "echo"})
	if d := protocol.DataOf(err); d.Kind != protocol.KindFailed || d.Server != "everything" || d.Tool != "echo" || !strings.Contains(err.Error(), "revoke the server's answer instead") {
		t.Errorf("revoke a tool of an always-allowed server: %v", err)
	}
	r, err := perms.MCPPermissionsRevoke(ctx, &protocol.PermissionsRevokeParams{Server: "everything"})
	if err != nil || len(r.Revoked) != 1 || r.Revoked[0].Scope != protocol.ScopeServer {
		t.Fatalf("mcp.permissions.revoke: %+v %v", r, err)
	}
	g.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	echo("asked")
	if _, err := perms.MCPPermissionsRevoke(ctx, &protocol.PermissionsRevokeParams{All: true}); protocol.DataOf(err).Kind != protocol.KindFailed || !strings.Contains(err.Error(), "nothing to revoke") {
		t.Errorf("revoke all of nothing: %v", err)
	}
	if _, err := perms.MCPPermissionsRevoke(ctx, &protocol.PermissionsRevokeParams{}); protocol.DataOf(err).Field != "server" {
		t.Errorf("revoke without server or all: %v", err)
	}
	if out, _, code = cli(); code != 0 || !strings.Contains(out, "No remembered answers") {
		t.Errorf("after revoking all: code %d\n%s", code, out)
	}
}
