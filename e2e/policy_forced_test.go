package e2e_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestPolicyForcedServerApproval: a server the organization forces is
// approved by the user like a project's server, from the CLI and from host
// serve over pipes. Before approval it is listed as approval_required with
// the command line it would run and never started; denied, it stays off
// and listed, and cannot be removed; approved, it runs; a definition the
// policy changes asks again. host serve also shows that the (test's own,
// user-writable) policy file is writable, in initialize's problems and in
// a log notification when it reloads the policy.
func TestPolicyForcedServerApproval(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	h := newHostCLI(t)
	policyFile := filepath.Join(filepath.Dir(h.global), "..", "managed.json")
	writePolicy := func(env map[string]string) {
		writeJSONFile(t, policyFile, map[string]any{"servers": map[string]any{
			"corp": map[string]any{"command": h.bin, "args": []string{"demo-stdio-server"}, "env": env},
		}})
	}
	writePolicy(map[string]string{"CORP_MODE": "one"})
	env := []string{"MCP_HOST_MANAGED_POLICY=" + policyFile}

	// The CLI: listed, not approved, not started.
	out, errOut, code := h.run(t, env, "mcp", "list", "--json")
	var rows []struct{ ID, Source, Approval string }
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 {
		t.Fatalf("list --json: code %d %v\n%s%s", code, err, out, errOut)
	}
	if len(rows) != 1 || rows[0].ID != "corp" || rows[0].Source != "managed" || rows[0].Approval != "unknown" {
		t.Errorf("list --json: %+v, want corp from managed, approval unknown", rows)
	}
	out, errOut, _ = h.run(t, env, "mcp", "get", "corp")
	for _, want := range []string{"approval_required", "host mcp approve corp", "command: " + h.bin, "demo-stdio-server", "sandbox policy:"} {
		if !strings.Contains(out, want) {
			t.Errorf("get corp lacks %q:\n%s%s", want, out, errOut)
		}
	}
	if out, errOut, _ := h.run(t, env, "mcp", "tools", "--json"); strings.Contains(out, "mcp_corp_") || !strings.Contains(errOut, "corp: approval_required") {
		t.Errorf("mcp tools: want corp refused as approval_required:\n%s%s", out, errOut)
	}
	if _, errOut, code := h.run(t, env, "mcp", "remove", "corp"); code != 4 || !strings.Contains(errOut, "provided by the organization") || !strings.Contains(errOut, "managed.json") {
		t.Errorf("remove corp: code %d\n%s", code, errOut)
	}
	if out, errOut, code := h.run(t, env, "mcp", "deny", "corp"); code != 0 || !strings.Contains(out, "denied corp, as defined in the managed policy") {
		t.Errorf("deny corp: code %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := h.run(t, env, "mcp", "get", "corp", "--json"); !strings.Contains(out, `"denied"`) {
		t.Errorf("get corp --json after deny:\n%s", out)
	}

	// host serve: denied stays off and listed; approved runs; a changed
	// definition asks again; the CLI's answer reaches it.
	sh := startServeIn(t, h.dir, append([]string{"MCP_HOST_CONFIG=" + h.global, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}, env...))
	ctx := ctxT(t, 2*time.Minute)
	init, err := sh.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"}})
	if err != nil {
		t.Fatal(err)
	}
	writable := "is writable by you"
	if p := strings.Join(init.Problems, "\n"); !strings.Contains(p, writable) || !strings.Contains(p, "managed.json") {
		t.Errorf("initialize's problems do not say the policy file is writable:\n%s", p)
	}
	status := func() protocol.ServerStatus {
		l, err := sh.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range l.Servers {
			if s.ID == "corp" {
				return s
			}
		}
		t.Fatalf("mcp.list lacks corp: %+v", l.Servers)
		return protocol.ServerStatus{}
	}
	decided := func(what, decision string) protocol.ServerStatus {
		t.Helper()
		var st protocol.ServerStatus
		waitFor(t, 60*time.Second, what, func() bool {
			st = status()
			return st.State == protocol.StateApprovalRequired && st.Approval != nil && st.Approval.Decision == decision
		})
		return st
	}
	st := decided("corp denied, off", "denied")
	if !strings.Contains(strings.Join(st.Approval.Fields, "\n"), "command: "+h.bin) || st.Source != "managed" || !st.Enabled {
		t.Errorf("corp denied: %+v %+v", st, st.Approval)
	}
	if _, err := sh.rt.MCPApprove(ctx, &protocol.ApproveParams{ID: "corp", Approve: true, Digest: st.Approval.Digest}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "corp ready after approval", func() bool { return status().State == protocol.StateReady })
	if st := status(); st.Tools == 0 {
		t.Errorf("the approved forced server lists no tools: %+v", st)
	}

	sh.ui.mu.Lock()
	sh.ui.logs = nil
	sh.ui.mu.Unlock()
	writePolicy(map[string]string{"CORP_MODE": "two"})
	st = decided("corp asked again after the policy changed its definition", "changed")
	if !strings.Contains(strings.Join(st.Approval.Fields, "\n"), "CORP_MODE=two") {
		t.Errorf("the changed definition is not shown: %q", st.Approval.Fields)
	}
	waitFor(t, 10*time.Second, "a log notification saying the policy file is writable", func() bool {
		sh.ui.mu.Lock()
		defer sh.ui.mu.Unlock()
		for _, l := range sh.ui.logs {
			if strings.Contains(l.Message, writable) {
				return true
			}
		}
		return false
	})
	if out, errOut, code := h.run(t, env, "mcp", "approve", "corp"); code != 0 {
		t.Errorf("host mcp approve corp: code %d\n%s%s", code, out, errOut)
	}
	// The new definition differs from the first only in an environment
	// value, which the kept catalog's key leaves out (a rotated token
	// keeps it): the approved stdio server starts on first use (idle), or
	// is ready if something used it.
	waitFor(t, 60*time.Second, "corp idle or ready after host mcp approve", func() bool {
		s := status().State
		return s == protocol.StateReady || s == protocol.StateIdle
	})
	if _, err := sh.rt.MCPApprove(ctx, &protocol.ApproveParams{ID: "corp", Approve: false, Digest: status().Approval.Digest}); err != nil {
		t.Fatal(err)
	}
	decided("corp off again after mcp.approve false", "denied")
	if _, err := sh.rt.MCPDisable(ctx, &protocol.ServerParams{ID: "corp"}); err == nil || !strings.Contains(err.Error(), "provided by the organization") {
		t.Errorf("mcp.disable corp: %v", err)
	}
}
