package runtime_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// projectEntry is a server that a project file defines.
func projectEntry(id, url, file string) config.ServerEntry {
	e := httpEntry(id, url)
	e.Source, e.Path, e.DefinedIn, e.DefinedPath = config.SourceProject, file, config.SourceProject, file
	return e
}

// TestProjectServerWaitsForApproval: the manager never connects to a
// project-defined server before the user approved its definition, asks
// again when the definition changes, and a denial stops it.
func TestProjectServerWaitsForApproval(t *testing.T) {
	var hits atomic.Int32
	srv := mcpServer(t)
	counted := countingProxy(t, srv.URL, &hits)
	store, err := approval.OpenStore(filepath.Join(t.TempDir(), "approvals.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := runtime.NewManager(runtime.ManagerOptions{Approvals: store})
	t.Cleanup(func() { m.Close() })
	file := "/repo/.mcp-host/config.json"
	e := projectEntry("proj", counted, file)
	m.Apply([]config.ServerEntry{e})

	st := waitState(t, m, "proj", runtime.StateApprovalRequired, 5*time.Second)
	if st.Approval == nil || st.Approval.Decision != string(approval.Unknown) || !strings.Contains(st.LastError, "host mcp approve proj") {
		t.Fatalf("status %+v", st)
	}
	time.Sleep(300 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the unapproved server", n)
	}
	if err := m.Approve("proj", true, "not-the-digest"); err == nil {
		t.Fatal("approving a digest the user never saw succeeded")
	}
	if err := m.Approve("proj", true, st.Approval.Digest); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "proj", runtime.StateReady, 10*time.Second)

	// A changed URL is a changed definition: it waits again.
	changed := projectEntry("proj", counted+"?v=2", file)
	m.Apply([]config.ServerEntry{changed})
	st = waitState(t, m, "proj", runtime.StateApprovalRequired, 5*time.Second)
	if st.Approval.Decision != string(approval.Changed) {
		t.Errorf("decision %s, want changed", st.Approval.Decision)
	}
	// Back to the approved definition: it runs without asking.
	m.Apply([]config.ServerEntry{e})
	waitState(t, m, "proj", runtime.StateReady, 10*time.Second)
	if err := m.Approve("proj", false, ""); err != nil {
		t.Fatal(err)
	}
	st = waitState(t, m, "proj", runtime.StateApprovalRequired, 5*time.Second)
	if st.Approval.Decision != string(approval.Denied) {
		t.Errorf("after deny: %s", st.Approval.Decision)
	}
	if err := m.Approve("glob", true, ""); err == nil {
		t.Error("approve of an unknown server succeeded")
	}
	m.Apply([]config.ServerEntry{e, httpEntry("glob", srv.URL)})
	if err := m.Approve("glob", true, ""); err == nil || !strings.Contains(err.Error(), "nothing to approve") {
		t.Errorf("approve of a global server: %v", err)
	}
}

// TestDisableSurvivesReload: SetEnabled (mcp.disable) is not undone by the
// next config reload.
func TestDisableSurvivesReload(t *testing.T) {
	srv := mcpServer(t)
	m := runtime.NewManager(runtime.ManagerOptions{})
	t.Cleanup(func() { m.Close() })
	entries := []config.ServerEntry{httpEntry("a", srv.URL), httpEntry("b", srv.URL)}
	m.Apply(entries)
	waitState(t, m, "a", runtime.StateReady, 10*time.Second)
	if err := m.SetEnabled("a", false); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "a", runtime.StateDisabled, 5*time.Second)
	entries[1].Config.RequestTimeoutMS = 1234 // some other edit
	m.Apply(entries)
	time.Sleep(200 * time.Millisecond)
	if st, _ := m.Get("a"); st.State != runtime.StateDisabled {
		t.Fatalf("a config reload undid mcp.disable: %s", st.State)
	}
	if err := m.SetEnabled("a", true); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "a", runtime.StateReady, 10*time.Second)
}

// TestStaleEntryKeepsRunning: re-applying an entry that only gained a
// Stale error (its file no longer parses) keeps the connection and shows
// the error as a warning; a fixed file clears it.
func TestStaleEntryKeepsRunning(t *testing.T) {
	srv := mcpServer(t)
	m := runtime.NewManager(runtime.ManagerOptions{})
	t.Cleanup(func() { m.Close() })
	e := httpEntry("a", srv.URL)
	m.Apply([]config.ServerEntry{e})
	before := waitState(t, m, "a", runtime.StateReady, 10*time.Second)
	stale := e
	stale.Stale = errTest("config g.json: line 3: unexpected end of JSON input")
	m.Apply([]config.ServerEntry{stale})
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, _ := m.Get("a")
		if strings.Contains(strings.Join(st.Warnings, " "), "unexpected end") {
			if st.State != runtime.StateReady || st.SessionID != before.SessionID || !st.LastConnectedAt.Equal(before.LastConnectedAt) {
				t.Errorf("the stale entry reconnected: %+v", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no warning: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.Apply([]config.ServerEntry{e})
	for deadline = time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, _ := m.Get("a"); len(st.Warnings) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("warning not cleared after the file was fixed")
		}
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

// countingProxy forwards to target and counts the requests it saw.
func countingProxy(t *testing.T, target string, hits *atomic.Int32) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
