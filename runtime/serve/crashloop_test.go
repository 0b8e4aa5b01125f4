package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server that answers initialize
// and tools/list and then exits, when this variable names the file each
// start is recorded in.
const flapServerEnv = "SERVE_TEST_FLAP_STARTS"

func TestMain(m *testing.M) {
	if starts := os.Getenv(flapServerEnv); starts != "" {
		runFlapServer(starts)
		return
	}
	os.Exit(m.Run())
}

func runFlapServer(starts string) {
	if f, err := os.OpenFile(starts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintln(f, os.Getpid())
		_ = f.Close()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "flap", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" {
				go func() {
					time.Sleep(50 * time.Millisecond) // the answer goes out first
					fmt.Fprintln(os.Stderr, "flap: exiting after initialize (on purpose)")
					os.Exit(4)
				}()
			}
			return res, err
		}
	})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// TestCrashLoopStatusesThroughTheProtocol: a stdio server that initializes
// and exits right away, run by Serve with MinBackoff 50 ms and MaxBackoff
// 1 s for 10 s. The UI gets one mcp.status per state change of each
// attempt (connecting, ready, error: at most 3 per start, none repeating
// the state before it), for at most the 16 starts the backoff allows in
// 10 s (see the runtime's TestCrashLoopsBackOff); before, a session that
// ended reset the backoff and the UI got about 3 notifications every 60
// ms. mcp.get and the error statuses say why (the exit status and the
// stderr tail) and when the next attempt is due.
func TestCrashLoopStatusesThroughTheProtocol(t *testing.T) {
	const (
		window     = 10 * time.Second
		maxStarts  = 16 // allowedStarts(10 s, 50 ms, 1 s) in package runtime's test
		perAttempt = 3  // connecting, ready, error
	)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	cfg, _ := json.Marshal(map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"flap": map[string]any{"command": exe, "env": map[string]string{flapServerEnv: starts}},
	}}})
	global := filepath.Join(dir, "config.json")
	if err := os.WriteFile(global, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	u := &ui{}
	conn, _, _ := startConnUI(t, serve.ServeOptions{
		Config: config.LoadOptions{GlobalPath: global}, WatchInterval: -1,
		Manager: runtime.ManagerOptions{MinBackoff: 50 * time.Millisecond, MaxBackoff: time.Second, ShutdownGrace: 200 * time.Millisecond},
	}, u)
	rt := protocol.NewServerCaller(conn)
	ctx, cancel := context.WithTimeout(context.Background(), window+30*time.Second)
	defer cancel()
	began := time.Now()
	if _, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(window - time.Since(began))
	// The statuses first: a start is recorded after its connecting status,
	// so these have at most one start more than counted.
	u.mu.Lock()
	shown := slices.Clone(u.statuses)
	u.mu.Unlock()
	b, _ := os.ReadFile(starts)
	n := bytes.Count(b, []byte("\n"))

	var states []string
	for i, st := range shown {
		states = append(states, st.State)
		if i > 0 && st.State == shown[i-1].State {
			t.Errorf("mcp.status %d repeats the state before it (%s): %+v", i, st.State, st)
		}
		if st.State == protocol.StateError && (!strings.Contains(st.LastError, "exit status 4") || !strings.Contains(st.LastError, "(on purpose)") || st.NextRetryAt.IsZero()) {
			t.Errorf("mcp.status %d: error without the exit status, the stderr tail or the next retry: %+v", i, st)
		}
	}
	t.Logf("%d starts, %d mcp.status: %s", n, len(shown), strings.Join(states, " "))
	if n < 2 || n > maxStarts {
		t.Errorf("the server started %d times in %v, want 2 to %d", n, window, maxStarts)
	}
	if len(shown) > perAttempt*n+1 {
		t.Errorf("%d mcp.status for %d starts, want at most %d per start", len(shown), n, perAttempt)
	}

	// mcp.get says why and when the next attempt is (polled until it is
	// caught between two attempts).
	for {
		asked := time.Now()
		res, err := rt.MCPGet(ctx, &protocol.ServerParams{ID: "flap"})
		if err != nil {
			t.Fatal(err)
		}
		st := res.Server
		if st.State == protocol.StateError && st.NextRetryAt.After(asked) {
			if !strings.Contains(st.LastError, "exit status 4") || !strings.Contains(st.LastError, "(on purpose)") {
				t.Errorf("mcp.get: last error %q: want the exit status and the stderr tail", st.LastError)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("mcp.get never showed error with a next retry in the future: %+v", st)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
