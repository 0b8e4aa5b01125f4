package runtime_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/policy"
)

// countingServer is mcpHandler behind a request counter.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	h := mcpHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// applied returns the entries with the policy applied, with lookup for
// ${VAR} at load.
func applied(t *testing.T, text string, lookup func(string) (string, bool), es ...config.ServerEntry) []config.ServerEntry {
	t.Helper()
	p := policy.Parse("/etc/mcp-host/managed.json", []byte(text))
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	eff := &config.Effective{Servers: es}
	p.Apply(eff, lookup)
	return eff.Servers
}

// TestPolicyBlockedServerIsNeverContacted: a server the policy blocks at
// load, and one whose ${VAR} only expands to a denied URL when the
// manager connects, both show blocked_by_policy with the rule and receive
// no request; an allowed one on the same server connects.
func TestPolicyBlockedServerIsNeverContacted(t *testing.T) {
	srv, hits := countingServer(t)
	blockedURL := srv.URL + "/blocked/mcp"
	nothing := func(string) (string, bool) { return "", false }
	entries := applied(t, `{"deny": [{"url": "http://127.0.0.1:*/blocked*"}]}`, nothing,
		httpEntry("blocked", blockedURL), httpEntry("later", "${LATER_URL}"))
	var later atomic.Value
	later.Store(blockedURL)
	m := runtime.NewManager(runtime.ManagerOptions{LookupEnv: func(k string) (string, bool) {
		if k == "LATER_URL" {
			return later.Load().(string), true
		}
		return "", false
	}})
	defer m.Close()
	m.Apply(entries)
	for _, id := range []string{"blocked", "later"} {
		st := waitState(t, m, id, runtime.StateBlockedByPolicy, 10*time.Second)
		if st.Policy == nil || st.Policy.Rule != `deny[0] {"url":"http://127.0.0.1:*/blocked*"}` || st.Policy.File != "/etc/mcp-host/managed.json" || !strings.Contains(st.LastError, st.Policy.Rule) {
			t.Errorf("%s: %+v %+v", id, st, st.Policy)
		}
	}
	if err := m.Reconnect("later"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	waitState(t, m, "later", runtime.StateBlockedByPolicy, 5*time.Second)
	if n := hits.Load(); n != 0 {
		t.Errorf("the blocked servers' URL got %d requests", n)
	}
	m.Apply(append(entries, applied(t, `{"deny": [{"url": "http://127.0.0.1:*/blocked*"}]}`, nothing, httpEntry("ok", srv.URL+"/ok"))...))
	waitState(t, m, "ok", runtime.StateReady, 10*time.Second)
	// The variable now names an allowed URL: a reconnect connects, and the
	// status no longer names a rule.
	later.Store(srv.URL + "/fine")
	if err := m.Reconnect("later"); err != nil {
		t.Fatal(err)
	}
	if st := waitState(t, m, "later", runtime.StateReady, 10*time.Second); st.Policy != nil {
		t.Errorf("ready, yet blocked by %+v", st.Policy)
	}
}

// TestPolicyToolDenyAndForced: a tool_deny glob hides the tool and refuses
// its calls whatever the config includes; a forced server cannot be
// disabled at run time.
func TestPolicyToolDenyAndForced(t *testing.T) {
	srv := mcpServer(t)
	e := httpEntry("fx", srv.URL)
	e.Config.IncludeTools = []string{"*"}
	entries := applied(t, `{"tool_deny": ["fx/ech*"], "servers": {"corp": {"url": "`+srv.URL+`"}}, "servers_preapproved": true}`, nil, e)
	m := runtime.NewManager(runtime.ManagerOptions{})
	defer m.Close()
	m.Apply(entries)
	settle(t, m, "fx", "corp")
	tools, err := m.Tools("fx")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.Name == "echo" {
			t.Error("a denied tool is listed")
		}
	}
	if st, _ := m.Get("fx"); st.Tools != 1 {
		t.Errorf("fx counts %d tools, want 1 (hang)", st.Tools)
	}
	if _, err := m.CallTool(context.Background(), "fx", "echo", map[string]any{"text": "x"}); err == nil || !strings.Contains(err.Error(), "tool_deny") {
		t.Errorf("call of a denied tool: %v", err)
	}
	if corpTools, _ := m.Tools("corp"); len(corpTools) != 2 {
		t.Errorf("corp (no deny glob for it) lists %d tools, want 2", len(corpTools))
	}
	if err := m.SetEnabled("corp", false); err == nil || !strings.Contains(err.Error(), "provided by the organization") {
		t.Errorf("SetEnabled(corp, false) = %v", err)
	}
	if st, _ := m.Get("corp"); st.State != runtime.StateReady || st.Source != config.SourceManaged {
		t.Errorf("corp: %s from %s", st.State, st.Source)
	}
}

// TestPolicyForcedServerWaitsForApproval: a server the organization
// forces is approved by the user like a project's: it is never contacted
// before, its approval shows its URL, a denial keeps it off (listed),
// a changed definition in the policy asks again, and
// "servers_preapproved" lets it start unasked.
func TestPolicyForcedServerWaitsForApproval(t *testing.T) {
	var hits atomic.Int32
	url := countingProxy(t, mcpServer(t).URL, &hits)
	store, err := approval.OpenStore(filepath.Join(t.TempDir(), "approvals.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := runtime.NewManager(runtime.ManagerOptions{Approvals: store})
	t.Cleanup(func() { m.Close() })
	forced := func(extra, u string) []config.ServerEntry {
		return applied(t, `{"servers": {"corp": {"url": "`+u+`"}}`+extra+`}`, nil)
	}
	m.Apply(forced("", url))
	st := waitState(t, m, "corp", runtime.StateApprovalRequired, 5*time.Second)
	if st.Approval == nil || st.Approval.Decision != string(approval.Unknown) || st.Approval.File != "/etc/mcp-host/managed.json" ||
		!strings.Contains(strings.Join(st.Approval.Fields, "\n"), "url: "+url) || !strings.Contains(st.LastError, "managed policy") {
		t.Fatalf("corp before approval: %+v %+v", st, st.Approval)
	}
	time.Sleep(300 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the forced server before approval", n)
	}
	if err := m.Approve("corp", true, st.Approval.Digest); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "corp", runtime.StateReady, 10*time.Second)
	if err := m.Approve("corp", false, ""); err != nil {
		t.Fatal(err)
	}
	if st := waitState(t, m, "corp", runtime.StateApprovalRequired, 5*time.Second); st.Approval.Decision != string(approval.Denied) || !st.Enabled {
		t.Errorf("after deny: %+v", st)
	}
	if err := m.Approve("corp", true, ""); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "corp", runtime.StateReady, 10*time.Second)
	// The organization changes the definition: the user is asked again.
	m.Apply(forced("", url+"/v2"))
	if st := waitState(t, m, "corp", runtime.StateApprovalRequired, 5*time.Second); st.Approval.Decision != string(approval.Changed) {
		t.Errorf("after the policy changed it: %s", st.Approval.Decision)
	}
	// Pre-approved by the policy: it starts, and there is nothing to approve.
	m.Apply(forced(`, "servers_preapproved": true`, url+"/v3"))
	if st := waitState(t, m, "corp", runtime.StateReady, 10*time.Second); st.Approval != nil {
		t.Errorf("a pre-approved server shows an approval: %+v", st.Approval)
	}
	if err := m.Approve("corp", true, ""); err == nil || !strings.Contains(err.Error(), "servers_preapproved") {
		t.Errorf("approve of a pre-approved server: %v", err)
	}
}
