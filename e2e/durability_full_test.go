package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/protocol"
)

// notSaved is what a write that met a full disk says of its file.
func notSaved(path string, step atomicfile.Step) string {
	return path + " not saved (" + string(step) + ": no space left on device); the file is as it was"
}

// TestFullDiskConfigEdits is issue 35 item 4 for `host mcp add`, `remove`
// and `disable`: a full disk at any step of the write fails the command
// (exit 1, not the usage error's 2) saying what was not saved and naming
// the file; the config is byte for byte what it was, no temporary file is
// left, and the host still lists the servers it had.
func TestFullDiskConfigEdits(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.mustRun(t, "mcp", "add", "a", "http://127.0.0.1:9/a")
	before := readOr(t, w.global())
	for _, step := range []atomicfile.Step{atomicfile.StepCreate, atomicfile.StepWrite, atomicfile.StepSync, atomicfile.StepRename} {
		r := w.run(t, fullDisk(step, "config.json"), "mcp", "add", "b", "http://127.0.0.1:9/b")
		if want := "add b: not added: config: " + notSaved(w.global(), step); r.code() != 1 || !strings.Contains(r.errOut, want) {
			t.Errorf("add on a full disk at %s: exit %d, stderr %q; want 1 and %q", step, r.code(), r.errOut, want)
		}
		if after := readOr(t, w.global()); !bytes.Equal(after, before) {
			t.Errorf("a full disk at %s changed the config:\n%s", step, after)
		}
	}
	for _, args := range [][]string{{"remove", "a"}, {"disable", "a"}} {
		r := w.run(t, fullDisk(atomicfile.StepWrite, "config.json"), append([]string{"mcp"}, args...)...)
		if want := args[0] + " a: not " + strings.TrimSuffix(args[0], "e") + "ed: config: " + notSaved(w.global(), atomicfile.StepWrite); r.code() != 1 || !strings.Contains(r.errOut, want) {
			t.Errorf("%s on a full disk: exit %d, stderr %q; want 1 and %q", args[0], r.code(), r.errOut, want)
		}
	}
	if n := temps(t, w.home); n != 0 {
		t.Errorf("%d temporary files left", n)
	}
	if servers, _ := listJSON(t, w); len(servers) != 1 || servers["a"].URL != "http://127.0.0.1:9/a" {
		t.Errorf("after the failed edits the host lists %+v", servers)
	}
}

// TestFullDiskApproval: `host mcp approve` on a full disk says the server
// was not approved and names the approvals file; the server stays
// unapproved.
func TestFullDiskApproval(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	writeJSONFile(t, filepath.Join(w.project, ".mcp-host", "config.json"), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"p1": map[string]any{"command": "/bin/true"},
	}}})
	r := w.run(t, fullDisk(atomicfile.StepSync, "approvals.json"), "mcp", "approve", "p1")
	path := filepath.Join(w.configDir(), "approvals.json")
	if want := "approve p1: not approved: approvals file: " + notSaved(path, atomicfile.StepSync); r.code() != 1 || !strings.Contains(r.errOut, want) {
		t.Errorf("approve on a full disk: exit %d, stderr %q; want 1 and %q", r.code(), r.errOut, want)
	}
	if servers, _ := listJSON(t, w); servers["p1"].Approval == "approved" {
		t.Errorf("p1 is approved after a failed write: %+v", servers["p1"])
	}
	if readOr(t, path) != nil || temps(t, w.home) != 0 {
		t.Error("the failed approval left a file behind")
	}
}

// TestFullDiskLogin: a login whose tokens cannot be saved fails (exit 1)
// saying so and naming the token file; the server is still not logged in
// and nothing is left on disk.
func TestFullDiskLogin(t *testing.T) {
	t.Parallel()
	demo, err := servers.Start(context.Background(), servers.Options{AutoApprove: true, TokenLifetime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer demo.Close()
	w := newWorld(t)
	writeJSONFile(t, w.global(), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"b": map[string]any{"transport": "http", "url": demo.MCPURL},
	}}})
	r := w.loginRun(t, "b", fullDisk(atomicfile.StepWrite, "mcp-auth.json"))
	path := filepath.Join(w.configDir(), "mcp-auth.json")
	if want := "saving credentials: tokenstore file: server b: save: token file: " + notSaved(path, atomicfile.StepWrite); r.code() != 1 || !strings.Contains(r.errOut, want) || strings.Contains(r.out, "logged in;") {
		t.Errorf("login on a full disk: exit %d\n%s%s\nwant exit 1 and %q", r.code(), r.out, r.errOut, want)
	}
	if g := w.run(t, nil, "mcp", "get", "b"); g.code() != exitAuthRequiredCode || !strings.Contains(g.out+g.errOut, "not logged in") {
		t.Errorf("get after the failed login: exit %d\n%s%s", g.code(), g.out, g.errOut)
	}
	if readOr(t, path) != nil || temps(t, w.home) != 0 {
		t.Error("the failed login left a file behind")
	}
}

// TestFullDiskServe: host serve with every write failing (ENOSPC at the
// write step of every file) keeps serving what it can: the server starts
// (its catalog is not kept), an "always allow" answer lets the call run
// but is not shown as saved: the call was decided by the user, not
// remembered, a warning names the permissions file, mcp.permissions.list
// has nothing, and the next call asks again.
func TestFullDiskServe(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	lazy := buildLazyStdio(t, t.TempDir())
	writeJSONFile(t, w.global(), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"lz": lazyServer(t, lazy, t.TempDir(), "lz", "t1 first"),
	}}})
	h := mustServe(t, w, fullDisk(atomicfile.StepWrite, ""))
	alwaysNotSaved(t, h, filepath.Join(w.configDir(), "permissions.json"))
	stopped(t, h)
	if n := temps(t, w.home); n != 0 {
		t.Errorf("%d temporary files left", n)
	}
	if b := readOr(t, filepath.Join(w.configDir(), "permissions.json")); b != nil {
		t.Errorf("a permissions file was written: %s", b)
	}
}

// alwaysNotSaved answers "always allow this tool" for lz's t1 on a host
// serve whose disk is full and checks that the answer is not shown as
// saved.
func alwaysNotSaved(t *testing.T, h *servedHost, permissions string) {
	t.Helper()
	if !waitState(t, h, "lz", protocol.StateReady) {
		t.Fatal("host serve ended") // the cleanup logs its stderr
	}
	asked := func() int {
		h.ui.mu.Lock()
		defer h.ui.mu.Unlock()
		return len(h.ui.confirms)
	}
	h.ui.setAnswer(answerWith(protocol.AnswerAlwaysTool))
	ctx := ctxT(t, time.Minute)
	for i := 1; i <= 2; i++ {
		res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: "t1", Arguments: json.RawMessage(`{}`)})
		if err != nil || res.DecidedBy != "user" || asked() != i {
			t.Fatalf("call %d on a full disk: %+v %v, asked %d times; want it run, decided by the user who was asked", i, res, err, asked())
		}
	}
	h.ui.mu.Lock()
	var warned string
	for _, l := range h.ui.logs {
		if l.Level == "warn" && strings.Contains(l.Message, "could not remember the answer") {
			warned = l.Message
		}
	}
	h.ui.mu.Unlock()
	if want := "permissions file: " + notSaved(permissions, atomicfile.StepWrite); !strings.Contains(warned, want) {
		t.Errorf("warning %q, want one with %q", warned, want)
	}
	l, err := protocol.NewPermissionsCaller(h.conn).MCPPermissionsList(ctx, &protocol.PermissionsListParams{})
	if err != nil || len(l.Answers) != 0 {
		t.Errorf("mcp.permissions.list lists an answer that was not saved: %+v %v", l, err)
	}
}
