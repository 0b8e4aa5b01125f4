package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/internal/runstats"
	"github.com/mcp-host/mcp-host/protocol"
)

// runSoak drives one `host serve` with real servers for the soak's work
// (tool calls in parallel streams, reconnects, crashes, token refreshes,
// runs with confirms, a lazy server's idle stops and restarts), samples
// it, and checks that nothing grows past its bound after warm-up and that
// no process is left behind. A bound broken fails the section.
func runSoak(cfg *Config, t *Table) error {
	sc := cfg.Soak
	if sc.Calls == 0 {
		sc = DefaultSoak()
	}
	node, e2eMods, err := nodeAndModules(cfg.Root)
	if err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	dir, err := os.MkdirTemp("", "mcpbench-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	host := filepath.Join(dir, "bin", "host")
	for pkg, out := range map[string]string{"./cmd/host": host, "./cmd/host-confine": filepath.Join(dir, "bin", "host-confine")} {
		if err := goBuild(cfg.Root, out, pkg); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Hour)
	defer cancel()
	demo, err := servers.Start(ctx, servers.Options{AutoApprove: true, TokenLifetime: sc.TokenLife})
	if err != nil {
		return err
	}
	defer demo.Close()
	env, script, err := soakSetup(dir, cfg.Self, node, e2eMods, demo.MCPURL)
	if err != nil {
		return err
	}
	h, err := startSoakHost(ctx, host, dir, env, script)
	if err != nil {
		return err
	}
	defer h.stop()
	if err := soakReady(ctx, h); err != nil {
		return fmt.Errorf("soak: %w (%s)", err, h.errs)
	}
	cfg.logf("soak: servers ready; %d calls (%d streams), %d reconnects, %d crashes, %d refreshes, %d runs, %d lazy restarts",
		sc.Calls, sc.Parallel, sc.Reconnects, sc.Crashes, sc.Refreshes, sc.Runs, sc.Lazy)

	stats := filepath.Join(dir, "stats.jsonl")
	pid := h.cmd.Process.Pid
	var calls atomic.Int64
	began := time.Now()
	sample := func() SoakSample {
		rss, kids := soakProc(pid)
		st := lastStats(stats)
		return SoakSample{At: time.Since(began), Calls: calls.Load(), RSS: rss, HeapInuse: st.HeapInuse, Goroutines: st.Goroutines,
			FDs: st.FDs, Children: kids, Files: countFiles(filepath.Join(dir, "cache")) + countFiles(filepath.Join(dir, "data"))}
	}
	w := &soakWork{h: h, sc: sc, calls: &calls, demo: demo, marker: "soak-crashy-" + dir, goroutines: func() int { return lastStats(stats).Goroutines }, fds: func() int { return lastStats(stats).FDs }}
	var samples []SoakSample
	done := make(chan error, 1)
	go func() { done <- w.run(ctx) }()
	tick := time.NewTicker(sc.Sample)
	defer tick.Stop()
	var workErr error
loop:
	for {
		select {
		case workErr = <-done:
			break loop
		case <-tick.C:
			s := sample()
			samples = append(samples, s)
			cfg.logf("soak %s: %d calls, RSS %s, heap %s, %d goroutines, %d fds, %d children, %d files",
				s.At.Round(time.Second), s.Calls, mib(s.RSS), mib(int64(s.HeapInuse)), s.Goroutines, s.FDs, s.Children, s.Files)
		}
	}
	traffic := time.Since(began)
	if workErr != nil {
		return fmt.Errorf("soak: %w (%s)", workErr, h.errs)
	}
	// Quiet: what the run left behind settles (idle timers, closed
	// sessions), then the last sample.
	time.Sleep(3 * time.Second)
	end := sample()
	samples = append(samples, end)
	h.stop()
	time.Sleep(time.Second)
	left := withMarker(dir)
	for _, p := range left {
		killPID(p)
	}
	t.Soak = thin(samples, 30)
	t.SoakWork = w.summary(traffic)
	t.SoakChecks = soakChecks(samples, traffic, end, w, len(left))
	for _, c := range t.SoakChecks {
		if !c.OK {
			return fmt.Errorf("soak: %s: want %s, got %s", c.What, c.Want, c.Got)
		}
	}
	return nil
}

// soakSetup writes the config (everything over stdio; a lazy copy of it
// that idles out after a second; the bench's own stdio server, which the
// soak kills; the demo's OAuth-protected HTTP server) and the script (each
// run calls crashy/echo, which asks a confirm), and returns host serve's
// environment: every directory inside dir, tokens in a file.
func soakSetup(dir, self, node, e2eMods, mcpURL string) ([]string, string, error) {
	js := filepath.Join(e2eMods, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	cfg := map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{js, "stdio"}},
		"lazy":       map[string]any{"command": node, "args": []string{js, "stdio"}, "start": "lazy", "idle_timeout_ms": 1000},
		"crashy":     map[string]any{"command": self, "args": []string{"soak-crashy-" + dir}, "env": map[string]string{childEnv: "stdio"}},
		"oauth":      map[string]any{"url": mcpURL},
	}}}
	script := map[string]any{"runs": []any{map[string]any{"steps": []any{
		map[string]any{"calls": []any{map[string]any{"name": "crashy/echo", "arguments": map[string]string{"text": "run"}}}},
		map[string]any{"text": "done"},
	}}}}
	for name, v := range map[string]any{"config.json": cfg, "script.json": script} {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, "", err
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_STATE_HOME=" + filepath.Join(dir, "data"),
		"MCP_HOST_CONFIG=" + filepath.Join(dir, "config.json"), "MCP_HOST_TOKEN_STORE=file",
		runstats.EnvFile + "=" + filepath.Join(dir, "stats.jsonl")}
	for _, d := range []string{"home", "config", "cache", "data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, "", err
		}
	}
	return env, filepath.Join(dir, "script.json"), nil
}

// soakReady waits for the stdio servers and logs in to the OAuth server.
func soakReady(ctx context.Context, h *soakHost) error {
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, id := range []string{"everything", "crashy"} {
		if err := h.waitFor(wctx, id, protocol.StateReady); err != nil {
			return err
		}
	}
	if err := h.waitFor(wctx, "oauth", protocol.StateAuthRequired, protocol.StateReady); err != nil {
		return err
	}
	if st, _, _ := h.state(wctx, "oauth"); st == protocol.StateAuthRequired {
		if _, err := h.rt.MCPLogin(wctx, &protocol.LoginParams{ID: "oauth"}); err != nil {
			return fmt.Errorf("login: %w", err)
		}
	}
	return h.waitFor(wctx, "oauth", protocol.StateReady)
}

// soakWork is the work of one soak run, each kind in its own goroutine.
type soakWork struct {
	h          *soakHost
	sc         SoakConfig
	calls      *atomic.Int64
	demo       *servers.Env
	marker     string
	goroutines func() int
	fds        func() int

	// othersDone closes when the work besides the calls is done.
	othersDone chan struct{}

	reconnects, crashes, refreshes, runs, lazy atomic.Int64
	// waveGrowth and waveFDs are the most goroutines and descriptors a
	// reconnect wave left behind.
	waveGrowth, waveFDs atomic.Int64
}

func (w *soakWork) run(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	do := func(fn func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx); err != nil {
				errs <- err
			}
		}()
	}
	var others sync.WaitGroup
	other := func(fn func(context.Context) error) {
		others.Add(1)
		do(func(ctx context.Context) error { defer others.Done(); return fn(ctx) })
	}
	w.othersDone = make(chan struct{})
	do(w.callStreams)
	other(w.crashLoop)
	other(w.refreshLoop)
	other(w.runLoop)
	other(w.lazyLoop)
	others.Wait()
	close(w.othersDone)
	wg.Wait()
	// The reconnect waves come last, alone, so that what each leaves
	// behind is not hidden in the other work's swing.
	do(w.reconnectWaves)
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

func (w *soakWork) summary(d time.Duration) string {
	return fmt.Sprintf("%d tool calls in %d streams, %d reconnects, %d crashes, %d token refreshes, %d runs with a confirm, %d lazy restarts, in %s",
		w.calls.Load(), w.sc.Parallel, w.reconnects.Load(), w.crashes.Load(), w.refreshes.Load(), w.runs.Load(), w.lazy.Load(), d.Round(time.Second))
}
