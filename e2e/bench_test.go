package e2e_test

import (
	"github.com/mcp-host/mcp-host/bench"

	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goServer is the bench package's go-sdk MCP server with an echo tool, in
// process, behind a Streamable HTTP handler that answers every POST after
// latency.
func goServer(b *testing.B, latency time.Duration) string {
	b.Helper()
	server := bench.NewServer(0)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if latency > 0 && r.Method == http.MethodPost {
			time.Sleep(latency)
		}
		h.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkManagerCallTool compares one tools/call through the manager and
// session with a bare go-sdk ClientSession.CallTool on the same server.
func BenchmarkManagerCallTool(b *testing.B) {
	url := goServer(b, 0)
	args := json.RawMessage(`{"text":"hello"}`)
	b.Run("bare-go-sdk", func(b *testing.B) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("manager", func(b *testing.B) {
		m := readyManager(b, url)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.CallTool(context.Background(), "bench", "echo", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkConnectMany connects 50 servers at once and, in the same run, the
// slowest of them alone. Every server answers each POST after a latency of
// 10-50 ms; the slowest one takes 50 ms.
func BenchmarkConnectMany(b *testing.B) {
	const n = 50
	entries := make([]config.ServerEntry, n)
	for i := range n {
		latency := time.Duration(10+40*i/(n-1)) * time.Millisecond
		entries[i] = config.ServerEntry{ID: fmt.Sprintf("s%02d", i), Source: "global",
			Config: config.ServerConfig{Transport: "http", URL: goServer(b, latency)}}
	}
	connect := func(b *testing.B, entries []config.ServerEntry) {
		m := runtime.NewManager(runtime.ManagerOptions{})
		defer m.Close()
		m.Apply(entries)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sts, err := m.WaitSettled(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range sts {
			if st.State != runtime.StateReady {
				b.Fatalf("%s: %s: %s", st.ID, st.State, st.LastError)
			}
		}
	}
	b.Run("slowest-alone", func(b *testing.B) {
		for b.Loop() {
			connect(b, entries[n-1:])
		}
	})
	b.Run("fifty-at-once", func(b *testing.B) {
		for b.Loop() {
			connect(b, entries)
		}
	})
}

// readyManager is a Manager with the one HTTP server "bench" at url,
// ready; it is closed with the benchmark.
func readyManager(b *testing.B, url string) *runtime.Manager {
	b.Helper()
	m := runtime.NewManager(runtime.ManagerOptions{})
	b.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{{ID: "bench", Source: "global", Config: config.ServerConfig{Transport: "http", URL: url}}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if sts, _ := m.WaitSettled(ctx); len(sts) != 1 || sts[0].State != runtime.StateReady {
		b.Fatalf("server not ready: %+v", sts)
	}
	return m
}
