package runtime

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pagedServer serves n tools in pages of 100 and returns the server, to
// change its list.
func pagedServer(t *testing.T, n int) (*mcp.Server, string) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1"}, &mcp.ServerOptions{PageSize: 100})
	for i := range n {
		addNamedTool(s, fmt.Sprintf("tool_%04d", i))
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func addNamedTool(s *mcp.Server, name string) {
	s.AddTool(&mcp.Tool{Name: name, Description: "does " + name, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
}

func readyManager(t testing.TB, o ManagerOptions, e config.ServerEntry) *Manager {
	t.Helper()
	m := NewManager(o)
	t.Cleanup(func() { _ = m.Close() })
	m.Apply([]config.ServerEntry{e})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sts, err := m.WaitSettled(ctx, e.ID)
	if err != nil || sts[0].State != StateReady {
		t.Fatalf("not ready: %v %+v", err, sts)
	}
	return m
}

// TestCatalogAdaptedWhileListedAndKept: with the runs' adapter options
// given, a server's tools are adapted as its pages arrive (the catalog is
// waiting, complete, when the server is ready), and runs reuse the adapted
// tools while the list stays the same: every tool is the same adapter in
// the second run's snapshot. Other options, or a new list, build afresh;
// include/exclude filters still apply.
func TestCatalogAdaptedWhileListedAndKept(t *testing.T) {
	s, url := pagedServer(t, 250)
	opts := adapter.Options{MaxOutputBytes: 5000}
	e := config.ServerEntry{ID: "p", Source: "global", Config: config.ServerConfig{Transport: "http", URL: url, ExcludeTools: []string{"tool_0007"}}}
	m := readyManager(t, ManagerOptions{Adapter: &opts}, e)

	sv, _ := m.server("p")
	sess, _ := sv.liveSession()
	sv.adapted.mu.Lock()
	waiting := sv.adapted.pending.matches(sess.Tools(), false, opts)
	sv.adapted.mu.Unlock()
	if !waiting {
		t.Fatal("the server is ready but its catalog was not adapted from its pages")
	}

	first, problems := m.Catalog(opts, nil)
	if len(problems) != 0 || len(first.Tools()) != 249 {
		t.Fatalf("catalog: %d tools, problems %q; want 249 (one excluded)", len(first.Tools()), problems)
	}
	if _, excluded := first.Tool(adapter.PublicName("p", "tool_0007")); excluded {
		t.Error("the excluded tool is in the catalog")
	}
	want, err := adapter.BuildCatalog("p", sess.Tools(), serverCaller{m, "p"}, e.Config.ToolAllowed, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want.Tools {
		g := first.Tools()[i]
		if g.Name() != w.Name() || g.Description() != w.Description() || string(g.Schema()) != string(w.Schema()) {
			t.Fatalf("tool %d adapted while listed: %s %q %s, want %s %q %s", i, g.Name(), g.Description(), g.Schema(), w.Name(), w.Description(), w.Schema())
		}
	}

	second, _ := m.Catalog(opts, nil)
	for i, tool := range second.Tools() {
		if tool != first.Tools()[i] {
			t.Fatalf("run two adapted tool %d again", i)
		}
	}
	other, _ := m.Catalog(adapter.Options{MaxOutputBytes: 10}, nil)
	if other.Tools()[0] == first.Tools()[0] {
		t.Error("other adapter options reused the catalog adapted for these")
	}

	addNamedTool(s, "tool_new") // list_changed; the session lists again
	deadline := time.Now().Add(10 * time.Second)
	for {
		snap, _ := m.Catalog(opts, nil)
		if _, ok := snap.Tool(adapter.PublicName("p", "tool_new")); ok {
			if snap.Tools()[0] == first.Tools()[0] {
				t.Error("a new list reused the old list's adapters")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new tool never reached the catalog")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkRunCatalog10k is what each run pays for the catalog of a server
// with 10,000 tools: "adapt-each-run" adapts every tool again (each run
// did before the manager kept the adapted catalog), "kept" is
// Manager.Catalog reusing it; both merge it into the run's snapshot.
func BenchmarkRunCatalog10k(b *testing.B) {
	s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1"}, nil)
	for i := range 10000 {
		addNamedTool(s, fmt.Sprintf("tool_%05d", i))
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	b.Cleanup(srv.Close)
	opts := adapter.Options{}
	m := readyManager(b, ManagerOptions{Adapter: &opts}, config.ServerEntry{ID: "p", Source: "global", Config: config.ServerConfig{Transport: "http", URL: srv.URL}})
	sess, err := m.Session("p")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("adapt-each-run", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cat, err := adapter.BuildCatalog("p", sess.Tools(), serverCaller{m, "p"}, nil, opts)
			if err != nil {
				b.Fatal(err)
			}
			if snap := adapter.NewSnapshot([]*adapter.Catalog{cat}, nil); len(snap.Tools()) != 10000 {
				b.Fatalf("%d tools", len(snap.Tools()))
			}
		}
	})
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if snap, _ := m.Catalog(opts, nil); len(snap.Tools()) != 10000 {
				b.Fatalf("%d tools", len(snap.Tools()))
			}
		}
	})
}
