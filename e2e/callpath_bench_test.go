package e2e_test

import (
	"github.com/mcp-host/mcp-host/bench"

	"github.com/mcp-host/mcp-host/internal/cputime"

	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"sync/atomic"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countedServer is goServer with a count of the TCP connections it accepted,
// so a benchmark can report connections opened per call.
func countedServer(b *testing.B) (string, *atomic.Int64) {
	b.Helper()
	server := bench.NewServer(0)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	b.Cleanup(srv.Close)
	return srv.URL, &conns
}

// callFunc makes one echo call.
type callFunc func(ctx context.Context) error

// runCalls runs call sequentially or 8-way (GOMAXPROCS x SetParallelism
// goroutines, 8 on the 2-core machine the numbers come from) and reports
// the TCP connections the server accepted per call and the CPU time the
// process (client and in-process server) used per call.
func runCalls(b *testing.B, conns *atomic.Int64, parallel bool, call callFunc) {
	ctx := context.Background()
	if err := call(ctx); err != nil { // warm: connection pool, caches
		b.Fatal(err)
	}
	b.ReportAllocs()
	before, cpu := conns.Load(), cputime.Process()
	b.ResetTimer()
	if parallel {
		b.SetParallelism(max(1, 8/max(1, goruntime.GOMAXPROCS(0))))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := call(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	} else {
		for b.Loop() {
			if err := call(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(conns.Load()-before)/float64(b.N), "conns/op")
	if used := cputime.Process() - cpu; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkCallPath compares, in one run, an echo tools/call over
// Streamable HTTP through: a bare go-sdk ClientSession (on an HTTP
// transport that keeps as many idle connections as the session's, so the
// comparison is about the layers above it), a session.Session, and the
// full path a model's call takes (Manager catalog adapter, permission gate
// with an allow rule, Manager.CallTool, session). Each runs sequentially
// ("seq") and 8-way ("par8"); conns/op is the TCP connections the server
// accepted per call (0 when connections are reused).
func BenchmarkCallPath(b *testing.B) {
	args := json.RawMessage(`{"text":"hello"}`)
	for _, mode := range []struct {
		name     string
		parallel bool
	}{{"seq", false}, {"par8", true}} {
		b.Run("bare-go-sdk/"+mode.name, func(b *testing.B) {
			url, conns := countedServer(b)
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.MaxIdleConnsPerHost = 64
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
				Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			runCalls(b, conns, mode.parallel, func(ctx context.Context) error {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
				return err
			})
		})
		b.Run("session/"+mode.name, func(b *testing.B) {
			url, conns := countedServer(b)
			s, err := session.Connect(context.Background(), session.Options{ID: "bench", URL: url})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			runCalls(b, conns, mode.parallel, func(ctx context.Context) error {
				_, err := s.CallTool(ctx, "echo", args)
				return err
			})
		})
		b.Run("full/"+mode.name, func(b *testing.B) {
			url, conns := countedServer(b)
			m := readyManager(b, url)
			snap, _ := m.Catalog(adapter.Options{}, nil)
			if len(snap.Tools()) != 1 {
				b.Fatalf("catalog has %d tools", len(snap.Tools()))
			}
			g, err := permission.New(permission.Options{Allow: []permission.Rule{{Server: "bench", Tool: "*"}}, NonInteractive: permission.PolicyRulesOnly})
			if err != nil {
				b.Fatal(err)
			}
			tool := g.Wrap(snap.Tools()[0])
			runCalls(b, conns, mode.parallel, func(ctx context.Context) error {
				res, err := tool.Call(ctx, args)
				if err == nil && res.IsError {
					b.Fatalf("tool error: %+v", res)
				}
				return err
			})
		})
	}
}
