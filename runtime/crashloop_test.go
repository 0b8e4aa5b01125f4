package runtime_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/internal/cputime"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server that crashes, when
// crashServerEnv names how (see runCrashServer).
const crashServerEnv = "RUNTIME_TEST_CRASH_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(crashServerEnv); mode != "" {
		runCrashServer(mode)
		return
	}
	os.Exit(m.Run())
}

// runCrashServer is a stdio server that appends its pid to the file
// CRASH_SERVER_STARTS at each start, then, by mode:
//
//	start        exits at once (status 3), a reason on stderr
//	once         exits at once the first time (status 3), then serves
//	initialized  answers initialize and tools/list, then exits (status 4)
//	             after CRASH_SERVER_UP (a duration; 50 ms when unset)
//	call         serves until the tool "boom" is called, then exits (status 5)
func runCrashServer(mode string) {
	if f, err := os.OpenFile(os.Getenv("CRASH_SERVER_STARTS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintln(f, os.Getpid())
		_ = f.Close()
	}
	if mode == "once" && countLines(os.Getenv("CRASH_SERVER_STARTS")) == 1 {
		fmt.Fprintln(os.Stderr, "crash server: cannot start the first time (on purpose)")
		os.Exit(3)
	}
	if mode == "start" {
		fmt.Fprintln(os.Stderr, "crash server: cannot start (on purpose)")
		os.Exit(3)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "crash", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "crash server: dying on a call (on purpose)")
		os.Exit(5)
		return nil, nil, nil
	})
	if mode == "initialized" {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if method == "tools/list" {
					up, err := time.ParseDuration(os.Getenv("CRASH_SERVER_UP"))
					if err != nil {
						up = 50 * time.Millisecond // the answer goes out first
					}
					go func() {
						time.Sleep(up)
						fmt.Fprintln(os.Stderr, "crash server: exiting after initialize (on purpose)")
						os.Exit(4)
					}()
				}
				return res, err
			}
		})
	}
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// crashEntry is a stdio server running runCrashServer in mode, its starts
// recorded in the returned file.
func crashEntry(t *testing.T, id, mode string) (config.ServerEntry, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(t.TempDir(), "starts")
	return config.ServerEntry{ID: id, Source: "global", Config: config.ServerConfig{
		Transport: "stdio", Command: exe,
		Env: map[string]string{crashServerEnv: mode, "CRASH_SERVER_STARTS": starts},
	}}, starts
}

func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// allowedStarts is how many times a server that dies soon after every
// start (sooner than max) can start within w: the first start, then one
// after each backoff delay, the n-th delay at least 4/5 (the jitter) of
// min·2^(n-1) capped at max.
func allowedStarts(w, minD, maxD time.Duration) int {
	n, spent := 1, time.Duration(0)
	for d := minD; ; n++ {
		spent += d * 4 / 5
		if spent > w {
			return n
		}
		d = min(2*d, maxD)
	}
}

// statusLog records every status the manager reports, with when.
type statusLog struct {
	mu  sync.Mutex
	sts map[string][]runtime.Status
	at  map[string][]time.Time
}

func (l *statusLog) add(st runtime.Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sts[st.ID] = append(l.sts[st.ID], st)
	l.at[st.ID] = append(l.at[st.ID], time.Now())
}

// count is how many statuses were reported for id.
func (l *statusLog) count(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sts[id])
}

// lastError is the last error status reported for id and when it came.
func (l *statusLog) lastError(id string) (runtime.Status, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.sts[id]) - 1; i >= 0; i-- {
		if l.sts[id][i].State == runtime.StateError {
			return l.sts[id][i], l.at[id][i]
		}
	}
	return runtime.Status{}, time.Time{}
}

// TestCrashLoopsBackOff runs, for a window of 10 s with MinBackoff 50 ms
// and MaxBackoff 1 s, three local servers that crash: one exits at start,
// one answers initialize and tools/list and exits right away (no call
// ever reaches it), one exits on every tools/call (a call is made as soon
// as it is ready). For each:
//
//   - its starts stay within what the backoff allows (allowedStarts: 16 in
//     10 s). The count of failures in a row is reset only once a session
//     has stayed up for MaxBackoff; before, any successful connect reset
//     it, so the servers that initialize and die restarted about every
//     MinBackoff (72 and 113 starts in the window; 33 and 36 with -race);
//   - its status says error, why (the exit status and its stderr), the
//     failures in a row (Attempts) and a next attempt in the future;
//   - the manager reports at most 3 statuses per start (connecting,
//     ready, error).
//
// And each costs the host (this process) and its children less than 10 %
// of one core over the window: the three together under 30 % (cputime:
// this process's CPU time plus that of its children once waited for).
// A start costs about 16 ms of CPU here (40 ms with -race, whose
// instrumented test binary is also the server), so the 16 starts the
// backoff allows stay well under it: 7 % (18 % with -race); before, the
// three cost 34 % (44 % with -race).
func TestCrashLoopsBackOff(t *testing.T) {
	const (
		window           = 10 * time.Second
		minB, maxB       = 50 * time.Millisecond, time.Second
		maxSharePer      = 0.10 // of one core, per flapping server
		reportsPerStart  = 3
		wantAttemptsOver = 2
	)
	modes := []struct{ id, mode, reason string }{
		{"on-start", "start", "exit status 3"},
		{"after-init", "initialized", "exit status 4"},
		{"on-call", "call", "exit status 5"},
	}
	log := &statusLog{sts: map[string][]runtime.Status{}, at: map[string][]time.Time{}}
	ready := make(chan struct{}, 1)
	m := runtime.NewManager(runtime.ManagerOptions{
		MinBackoff: minB, MaxBackoff: maxB, ShutdownGrace: 200 * time.Millisecond,
		OnStatus: func(st runtime.Status) {
			log.add(st)
			if st.ID == "on-call" && st.State == runtime.StateReady {
				select {
				case ready <- struct{}{}:
				default:
				}
			}
		},
	})
	var entries []config.ServerEntry
	starts := map[string]string{}
	for _, c := range modes {
		e, f := crashEntry(t, c.id, c.mode)
		entries, starts[c.id] = append(entries, e), f
	}
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	go func() { // the calls that kill on-call, one each time it is ready
		for {
			select {
			case <-ctx.Done():
				return
			case <-ready:
			}
			_, _ = m.CallTool(ctx, "on-call", "boom", nil)
		}
	}()

	cpu0, began := cputime.Process()+cputime.Children(), time.Now()
	m.Apply(entries)
	<-ctx.Done()
	// The reports first: a start is recorded after its connecting status,
	// so these reports have at most one start more than counted.
	counted, reported := map[string]int{}, map[string]int{}
	for id := range starts {
		reported[id] = log.count(id)
	}
	for id, f := range starts {
		counted[id] = countLines(f)
	}
	_ = m.Close() // every child ended and waited for: Children counts it
	cpu, elapsed := cputime.Process()+cputime.Children()-cpu0, time.Since(began)

	limit := allowedStarts(window, minB, maxB)
	for _, c := range modes {
		n := counted[c.id]
		st, at := log.lastError(c.id)
		reports := reported[c.id]
		t.Logf("%s: %d starts (at most %d), %d status reports; last error (attempt %d, next in %v): %s",
			c.id, n, limit, reports, st.Attempts, st.NextRetryAt.Sub(at).Round(time.Millisecond), st.LastError)
		if n < 2 || n > limit {
			t.Errorf("%s started %d times in %v, want 2 to %d (MinBackoff %v, MaxBackoff %v)", c.id, n, window, limit, minB, maxB)
		}
		if st.State != runtime.StateError {
			t.Errorf("%s: no error status reported", c.id)
			continue
		}
		if !strings.Contains(st.LastError, c.reason) || !strings.Contains(st.LastError, "(on purpose)") {
			t.Errorf("%s: last error %q, want the exit status (%s) and the stderr tail", c.id, st.LastError, c.reason)
		}
		if !st.NextRetryAt.After(at) {
			t.Errorf("%s: next retry at %v, not after the status came (%v)", c.id, st.NextRetryAt, at)
		}
		if st.Attempts < wantAttemptsOver {
			t.Errorf("%s: attempts %d, want the failures in a row counted (over %d)", c.id, st.Attempts, wantAttemptsOver)
		}
		if reports > reportsPerStart*n+1 {
			t.Errorf("%s: %d status reports for %d starts, want at most %d per start", c.id, reports, n, reportsPerStart)
		}
	}
	share, maxShare := cpu.Seconds()/elapsed.Seconds(), maxSharePer*float64(len(modes))
	t.Logf("CPU: %v over %v (%.1f%% of one core)", cpu.Round(time.Millisecond), elapsed.Round(time.Millisecond), 100*share)
	if share > maxShare {
		t.Errorf("%d crash loops cost %.1f%% of one core (host and children), want under %.0f%%", len(modes), 100*share, 100*maxShare)
	}
}

// TestCrashCounterResetsAfterAStableRun: a server that stays up longer
// than MaxBackoff (here 1 s against 200 ms) before it dies has its
// failures forgiven: each loss is the first in a row, retried after the
// shortest delay, and its status says attempt 1.
func TestCrashCounterResetsAfterAStableRun(t *testing.T) {
	const minB, maxB, losses = 50 * time.Millisecond, 200 * time.Millisecond, 3
	log := &statusLog{sts: map[string][]runtime.Status{}, at: map[string][]time.Time{}}
	lost := make(chan struct{}, losses)
	m := runtime.NewManager(runtime.ManagerOptions{
		MinBackoff: minB, MaxBackoff: maxB, ShutdownGrace: 200 * time.Millisecond,
		OnStatus: func(st runtime.Status) {
			log.add(st)
			if st.State == runtime.StateError {
				select {
				case lost <- struct{}{}:
				default:
				}
			}
		},
	})
	t.Cleanup(func() { _ = m.Close() })
	e, _ := crashEntry(t, "stable", "initialized")
	e.Config.Env["CRASH_SERVER_UP"] = "1s"
	m.Apply([]config.ServerEntry{e})
	for range losses {
		select {
		case <-lost:
		case <-time.After(30 * time.Second):
			t.Fatal("the server did not die")
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for i, st := range log.sts["stable"] {
		if st.State != runtime.StateError {
			continue
		}
		if st.Attempts != 1 || st.NextRetryAt.Sub(log.at["stable"][i]) > minB {
			t.Errorf("loss after a run of 1 s: attempt %d, next retry in %v; want attempt 1, retried within MinBackoff (%v): %s",
				st.Attempts, st.NextRetryAt.Sub(log.at["stable"][i]), minB, st.LastError)
		}
	}
}
