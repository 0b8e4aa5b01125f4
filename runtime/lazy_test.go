package runtime_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// switchable serves one of two go-sdk servers, counting the requests that
// reach it: "before" has echo and gone, "after" has echo with another
// description and no gone.
type switchable struct {
	after atomic.Bool
	hits  atomic.Int32
	srv   *httptest.Server
}

func newSwitchable(t *testing.T) *switchable {
	sw := &switchable{}
	mk := func(desc string, gone bool) http.Handler {
		s := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: desc}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
		if gone {
			mcp.AddTool(s, &mcp.Tool{Name: "gone"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
		}
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	before, after := mk("echoes", true), mk("echoes, changed", false)
	sw.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw.hits.Add(1)
		if sw.after.Load() {
			after.ServeHTTP(w, r)
			return
		}
		before.ServeHTTP(w, r)
	}))
	t.Cleanup(sw.srv.Close)
	return sw
}

func lazyEntry(url string, idle int) config.ServerEntry {
	e := httpEntry("lz", url)
	e.Config.Start = config.StartLazy
	e.Config.IdleTimeoutMS = &idle
	return e
}

// lazyManager runs e with the kept catalogs in dir and waits until it
// settles.
func lazyManager(t *testing.T, dir string, e config.ServerEntry) (*runtime.Manager, runtime.Status) {
	t.Helper()
	m := runtime.NewManager(runtime.ManagerOptions{Catalogs: &listcache.Catalogs{Dir: listcache.Dir{Path: dir}}})
	t.Cleanup(func() { _ = m.Close() })
	m.Apply([]config.ServerEntry{e})
	return m, settle(t, m, e.ID)[0]
}

func callSnapshot(t *testing.T, m *runtime.Manager, tool string) (string, error) {
	t.Helper()
	snap, _ := m.Catalog(adapter.Options{}, nil)
	for _, at := range snap.Tools() {
		if at.ToolName() == tool {
			res, err := at.Call(context.Background(), json.RawMessage(`{"text":"hi"}`))
			if err != nil {
				return "", err
			}
			return core.RenderResult(res), nil
		}
	}
	t.Fatalf("tool %q not offered", tool)
	return "", nil
}

// A lazy server with a kept catalog costs nothing until used: it is idle,
// its kept tools are offered, no request reaches it; the first call
// starts it, and after idle_timeout_ms unused it stops and is idle again.
func TestLazyServerStartsOnFirstCallAndStopsWhenIdle(t *testing.T) {
	dir := t.TempDir()
	sw := newSwitchable(t)
	m, st := lazyManager(t, dir, lazyEntry(sw.srv.URL, 0))
	if st.State != runtime.StateReady || st.Cached {
		t.Fatalf("with no kept catalog the server starts to list it: %+v", st)
	}
	_ = m.Close()

	m, st = lazyManager(t, dir, lazyEntry(sw.srv.URL, 300))
	if st.State != runtime.StateIdle || !st.Cached || st.Tools != 2 || st.ServerName != "fixture" {
		t.Fatalf("status %+v, want idle with 2 cached tools", st)
	}
	hits := sw.hits.Load()
	if snap, _ := m.Catalog(adapter.Options{}, nil); len(snap.Tools()) != 2 {
		t.Fatalf("offered %d tools from the kept catalog, want 2", len(snap.Tools()))
	}
	if n := sw.hits.Load(); n != hits {
		t.Fatalf("%d requests reached an idle server", n-hits)
	}
	out, err := callSnapshot(t, m, "echo")
	if err != nil || !strings.Contains(out, "hi") {
		t.Fatalf("first call: %q, %v", out, err)
	}
	if st, _ := m.Get("lz"); st.State != runtime.StateReady || st.Cached {
		t.Fatalf("after the call: %+v", st)
	}
	st = waitState(t, m, "lz", runtime.StateIdle, 20*time.Second)
	if !st.Cached || st.Tools != 2 {
		t.Fatalf("after the idle stop: %+v", st)
	}
	if out, err := callSnapshot(t, m, "echo"); err != nil || !strings.Contains(out, "hi") {
		t.Fatalf("call after the idle stop: %q, %v", out, err)
	}
}

// A tool offered from the kept catalog that the started server no longer
// has, or has changed, is not called: the call fails naming server and
// tool, and the next catalog is the live one.
func TestLazyVanishedAndChangedTools(t *testing.T) {
	dir := t.TempDir()
	sw := newSwitchable(t)
	m, _ := lazyManager(t, dir, lazyEntry(sw.srv.URL, 0))
	_ = m.Close()
	sw.after.Store(true)

	m, st := lazyManager(t, dir, lazyEntry(sw.srv.URL, 0))
	if st.State != runtime.StateIdle {
		t.Fatalf("%+v", st)
	}
	snap, _ := m.Catalog(adapter.Options{}, nil)
	var gone, echo *adapter.Tool
	for _, at := range snap.Tools() {
		switch at.ToolName() {
		case "gone":
			gone = at
		case "echo":
			echo = at
		}
	}
	if gone == nil || echo == nil {
		t.Fatal("the kept catalog was not offered")
	}
	_, err := gone.Call(context.Background(), json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), `server "lz" no longer offers tool "gone"`) {
		t.Fatalf("vanished tool: %v", err)
	}
	_, err = echo.Call(context.Background(), json.RawMessage(`{"text":"x"}`))
	if err == nil || !strings.Contains(err.Error(), `server "lz" changed tool "echo"`) {
		t.Fatalf("changed tool: %v", err)
	}
	snap, _ = m.Catalog(adapter.Options{}, nil)
	if len(snap.Tools()) != 1 || snap.Tools()[0].ToolName() != "echo" {
		t.Fatalf("next catalog: %d tools", len(snap.Tools()))
	}
	if out, err := callSnapshot(t, m, "echo"); err != nil || !strings.Contains(out, "hi") {
		t.Fatalf("call from the live catalog: %q, %v", out, err)
	}
}

// A lazy server that fails to start on use: the call's error says why,
// the status is error, and the kept catalog stays offered; the next call
// tries again rather than a retry loop in the background.
func TestLazyStartFailureKeepsCatalog(t *testing.T) {
	dir := t.TempDir()
	sw := newSwitchable(t)
	m, _ := lazyManager(t, dir, lazyEntry(sw.srv.URL, 0))
	_ = m.Close()
	url := sw.srv.URL
	sw.srv.Close()

	m, st := lazyManager(t, dir, lazyEntry(url, 0))
	if st.State != runtime.StateIdle {
		t.Fatalf("%+v", st)
	}
	_, err := callSnapshot(t, m, "echo")
	if err == nil || !strings.Contains(err.Error(), `server "lz" is error`) {
		t.Fatalf("call to a server that cannot start: %v", err)
	}
	st, _ = m.Get("lz")
	if st.State != runtime.StateError || !st.Cached || st.Tools != 2 || st.NextRetryAt != (time.Time{}) {
		t.Fatalf("status after the failed start: %+v", st)
	}
	if snap, _ := m.Catalog(adapter.Options{}, nil); len(snap.Tools()) != 2 {
		t.Fatalf("catalog after the failed start: %d tools", len(snap.Tools()))
	}
	if _, err := callSnapshot(t, m, "echo"); err == nil {
		t.Fatal("second call succeeded against a closed server")
	}
}

// A lazy server a person turns on starts at once, kept catalog or not.
func TestLazyServerEnabledStartsNow(t *testing.T) {
	dir := t.TempDir()
	sw := newSwitchable(t)
	m, _ := lazyManager(t, dir, lazyEntry(sw.srv.URL, 0))
	_ = m.Close()
	m, st := lazyManager(t, dir, lazyEntry(sw.srv.URL, 0))
	if st.State != runtime.StateIdle {
		t.Fatalf("%+v", st)
	}
	if err := m.SetEnabled("lz", false); err != nil {
		t.Fatal(err)
	}
	if err := m.SetEnabled("lz", true); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Get("lz"); st.State != runtime.StateConnecting && st.State != runtime.StateReady {
		t.Fatalf("just enabled: %+v, want connecting", st)
	}
	if st := settle(t, m, "lz")[0]; st.State != runtime.StateReady {
		t.Fatalf("enabled: %+v, want ready", st)
	}
}
