package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestServeCrashLoopsBackOff: host serve, with its own backoff (500 ms
// doubling to 30 s), runs two stdio servers that crash on every start
// (e2e/internal/hostilestdio -crash): "dead" exits at start, "flap" (start
// eager, so that it is retried in the background) answers initialize and
// tools/list and exits right away. Over 10 s:
//
//   - each starts at most 5 times (the first start, then after at least
//     0.4, 0.8, 1.6 and 3.2 s: the delays less their 20 % jitter). Before,
//     "flap"'s successful connect reset the backoff and it restarted
//     every 0.5 to 0.6 s;
//   - the UI gets one mcp.status per state change, at most 3 changes per
//     start (connecting, ready, error; and once a second connecting,
//     when the first start resolves the sandbox's summary), never the
//     same status twice in a row, each error with its reason (exit
//     status, stderr tail), next_retry_at and attempts;
//   - mcp.get of a server in error says why and when it is retried, and
//     host mcp get says why it did not start;
//   - host serve, its servers included, used under 20 % of one core over
//     its whole life (the rusage of host serve once it has ended, which
//     counts the servers it started and waited for).
func TestServeCrashLoopsBackOff(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	const (
		window     = 10 * time.Second
		maxStarts  = 5
		perAttempt = 3
		maxShare   = 0.20
	)
	bin := buildHostile(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	// Sandboxed as by default, allowed to write their events (not beside
	// the host's config, which no server may write).
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	events := map[string]string{"dead": filepath.Join(work, "dead.events"), "flap": filepath.Join(work, "flap.events")}
	sandbox := map[string]any{"filesystem": map[string]any{"write": []string{work}}}
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"dead": map[string]any{"command": bin, "args": []string{"-crash", "start", "-events", events["dead"]}, "sandbox": sandbox},
		"flap": map[string]any{"command": bin, "args": []string{"-crash", "init", "-events", events["flap"]}, "start": "eager", "sandbox": sandbox},
	}}})
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS="}

	began := time.Now()
	h := startServe(t, env)
	ctx := ctxT(t, window+time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	time.Sleep(window - time.Since(began))
	// The statuses first: a start is recorded after its connecting status,
	// so these have at most one start more than counted.
	h.ui.mu.Lock()
	shown := map[string][]protocol.ServerStatus{}
	for _, p := range h.ui.statuses {
		shown[p.Server.ID] = append(shown[p.Server.ID], p.Server)
	}
	h.ui.mu.Unlock()
	starts := map[string]int{}
	for id, f := range events {
		b, _ := os.ReadFile(f)
		starts[id] = strings.Count(string(b), "start ")
	}

	for _, id := range []string{"dead", "flap"} {
		n, sts := starts[id], shown[id]
		var seq []string
		var last []byte
		changes := 0
		for i, st := range sts {
			seq = append(seq, st.State)
			if i == 0 || st.State != sts[i-1].State {
				changes++
			}
			if b, _ := json.Marshal(st); string(b) == string(last) {
				t.Errorf("%s: mcp.status %d repeats the one before it: %s", id, i, b)
			} else {
				last = b
			}
			if st.State == protocol.StateError && (!strings.Contains(st.LastError, "exit status") || !strings.Contains(st.LastError, "(on purpose)") || st.NextRetryAt.IsZero() || st.Attempts < 1) {
				t.Errorf("%s: mcp.status %d: error without the exit status, the stderr tail, next_retry_at or attempts: %+v", id, i, st)
			}
		}
		t.Logf("%s: %d starts, %d mcp.status: %s", id, n, len(sts), strings.Join(seq, " "))
		if n < 2 || n > maxStarts {
			t.Errorf("%s started %d times in %v, want 2 to %d", id, n, window, maxStarts)
		}
		if changes > perAttempt*n+1 || len(sts) > changes+1 {
			t.Errorf("%s: %d mcp.status, %d state changes, for %d starts: want at most %d changes per start, one status each (one more for the sandbox)", id, len(sts), changes, n, perAttempt)
		}
	}

	// mcp.get, polled until it meets the server between two attempts.
	for {
		asked := time.Now()
		res, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "dead"})
		if err != nil {
			t.Fatalf("mcp.get: %v", err)
		}
		if st := res.Server; st.State == protocol.StateError && st.NextRetryAt.After(asked) {
			if !strings.Contains(st.LastError, "exit status 3") || !strings.Contains(st.LastError, "crashing at start (on purpose)") {
				t.Errorf("mcp.get dead: last error %q, want the exit status and the stderr tail", st.LastError)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("mcp.get never showed dead in error with a retry to come: %+v", res.Server)
		}
		time.Sleep(50 * time.Millisecond)
	}

	cli := &hostCLI{bin: buildHost(t), dir: dir, global: config}
	out, errOut, code := cli.run(t, nil, "mcp", "get", "dead", "--json")
	var got struct {
		State     string `json:"state"`
		LastError string `json:"last_error"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code == 0 || got.State != protocol.StateError ||
		!strings.Contains(got.LastError, "exit status 3") || !strings.Contains(got.LastError, "(on purpose)") {
		t.Errorf("host mcp get dead: code %d, %+v (%v)\n%s%s", code, got, err, out, errOut)
	}

	if _, err := h.rt.Shutdown(ctx, &protocol.Empty{}); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	var exitErr error
	select {
	case exitErr = <-h.exited:
		h.exited <- exitErr // for the cleanup
	case <-ctx.Done():
		t.Fatal("host serve did not exit after shutdown")
	}
	life := time.Since(began)
	ps := h.cmd.ProcessState
	cpu := ps.UserTime() + ps.SystemTime()
	share := cpu.Seconds() / life.Seconds()
	t.Logf("host serve and its servers: %v of CPU over %v (%.1f%% of one core)", cpu.Round(time.Millisecond), life.Round(time.Millisecond), 100*share)
	if share > maxShare {
		t.Errorf("host serve with two crash loops used %.1f%% of one core, want under %.0f%%", 100*share, 100*maxShare)
	}
}
