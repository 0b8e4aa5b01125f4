package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// lazySamples are one round's measurements.
type lazySamples struct {
	cold, eagerOffered, lazyOffered time.Duration
	eagerRSS, lazyRSS               int64
	firstCall, afterIdle, own       time.Duration
}

// runLazy measures `host serve` with the eight npm stdio servers from a
// warm catalog cache, eager against lazy, and the cold-cache start. It is
// skipped, with a note, when bench/node's servers are not installed.
func runLazy(cfg *Config, t *Table) error {
	node, e2eMods, err := nodeAndModules(cfg.Root)
	benchMods := filepath.Join(cfg.Root, "bench", "node", "node_modules")
	if err == nil {
		_, err = os.Stat(filepath.Join(benchMods, "@playwright", "mcp", "cli.js"))
	}
	if err != nil {
		t.LazyNote = fmt.Sprintf("not run: %v (make bench installs bench/node)", err)
		return nil
	}
	dir, err := os.MkdirTemp("", "mcpbench-lazy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	host, _, err := buildBinaries(cfg.Root, dir)
	if err != nil {
		return err
	}
	servers := lazyServers(node, e2eMods, benchMods, dir)
	var rounds []lazySamples
	for r := range cfg.LazyRounds {
		s, err := lazyRound(host, filepath.Join(dir, fmt.Sprint("round", r)), servers, r%2 == 1)
		if err != nil {
			return err
		}
		cfg.logf("lazy round %d: cold %s, eager %s / lazy %s offered, RSS %s / %s, first call %s (own start %s), after idle %s",
			r+1, s.cold.Round(time.Millisecond), s.eagerOffered.Round(time.Millisecond), s.lazyOffered.Round(time.Millisecond),
			mib(s.eagerRSS), mib(s.lazyRSS), s.firstCall.Round(time.Millisecond), s.own.Round(time.Millisecond), s.afterIdle.Round(time.Millisecond))
		rounds = append(rounds, s)
	}
	med := func(f func(lazySamples) time.Duration) time.Duration {
		xs := make([]float64, len(rounds))
		for i, s := range rounds {
			xs[i] = float64(f(s))
		}
		return time.Duration(median(xs))
	}
	medRSS := func(f func(lazySamples) int64) int64 {
		xs := make([]float64, len(rounds))
		for i, s := range rounds {
			xs[i] = float64(f(s))
		}
		return int64(median(xs))
	}
	own := med(func(s lazySamples) time.Duration { return s.own })
	t.Lazy = []LazyRow{
		{What: "catalog offered, warm cache (process start to tools.list with every tool)",
			Eager: med(func(s lazySamples) time.Duration { return s.eagerOffered }), Lazy: med(func(s lazySamples) time.Duration { return s.lazyOffered })},
		{What: "process-tree RSS once offered (host and servers)",
			EagerRSS: medRSS(func(s lazySamples) int64 { return s.eagerRSS }), LazyRSS: medRSS(func(s lazySamples) int64 { return s.lazyRSS })},
		{What: "first call to a cold server (" + lazyCallServer + "/" + lazyCallTool + ", tool.call)",
			Lazy: med(func(s lazySamples) time.Duration { return s.firstCall }), Ref: own, RefWhat: "its own start + call"},
		{What: "call after its idle stop",
			Lazy: med(func(s lazySamples) time.Duration { return s.afterIdle }), Ref: own, RefWhat: "its own start + call"},
		{What: "cold cache: catalog offered (every server starts to list; eager: as above, it keeps no catalog)",
			Eager: med(func(s lazySamples) time.Duration { return s.eagerOffered }), Lazy: med(func(s lazySamples) time.Duration { return s.cold })},
	}
	return nil
}

// lazyRound runs the cold-cache start and the eager start (in turns, the
// one or the other first: the first start of a round finds colder OS
// caches), then lazy from the warm cache, each in a fresh host serve, and
// the called server's own start.
func lazyRound(host, dir string, servers map[string]map[string]any, eagerFirst bool) (lazySamples, error) {
	var s lazySamples
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return s, err
	}
	eagerCfg, err := writeLazyConfig(dir, servers, config.StartEager)
	if err != nil {
		return s, err
	}
	lazyCfg, err := writeLazyConfig(dir, servers, config.StartLazy)
	if err != nil {
		return s, err
	}
	env := func(cfgPath string) []string {
		return append(os.Environ(), "MCP_HOST_CONFIG="+cfgPath, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file",
			"MCP_HOST_CACHE_DIR="+filepath.Join(dir, "cache"), "HOME="+dir, "MCP_HOST_MODEL=")
	}
	// Eager: every server starts (it keeps no catalog, so the cache does
	// not matter).
	eager := func() error {
		sv, err := startServed(ctx, host, dir, env(eagerCfg))
		if err != nil {
			return err
		}
		defer sv.stop()
		if s.eagerOffered, _, err = sv.catalogOffered(ctx, 0); err != nil {
			return fmt.Errorf("eager: %w", err)
		}
		time.Sleep(time.Second) // let the servers settle
		s.eagerRSS = treeRSS(sv.cmd.Process.Pid)
		return nil
	}
	// Cold cache: lazy servers with nothing kept start at once to list.
	var want int
	cold := func() error {
		sv, err := startServed(ctx, host, dir, env(lazyCfg))
		if err != nil {
			return err
		}
		defer sv.stop()
		if s.cold, want, err = sv.catalogOffered(ctx, 0); err != nil {
			return fmt.Errorf("cold cache: %w", err)
		}
		return nil
	}
	steps := []func() error{cold, eager}
	if eagerFirst {
		steps = []func() error{eager, cold}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return s, err
		}
	}
	// Warm cache, lazy: nothing starts until called.
	sv, err := startServed(ctx, host, dir, env(lazyCfg))
	if err != nil {
		return s, err
	}
	defer sv.stop()
	if s.lazyOffered, _, err = sv.catalogOffered(ctx, want); err != nil {
		return s, fmt.Errorf("lazy: %w", err)
	}
	time.Sleep(time.Second)
	s.lazyRSS = treeRSS(sv.cmd.Process.Pid)
	if s.firstCall, err = sv.call(ctx, lazyCallServer, lazyCallTool); err != nil {
		return s, fmt.Errorf("first call: %w", err)
	}
	if err := sv.waitState(ctx, lazyCallServer, "idle"); err != nil {
		return s, err
	}
	if s.afterIdle, err = sv.call(ctx, lazyCallServer, lazyCallTool); err != nil {
		return s, fmt.Errorf("call after the idle stop: %w", err)
	}
	// The server's own start varies by a third from one start to the
	// next on a shared machine: the median of three.
	var owns []float64
	for range 3 {
		d, err := ownStart(ctx, servers[lazyCallServer])
		if err != nil {
			return s, err
		}
		owns = append(owns, float64(d))
	}
	s.own = time.Duration(median(owns))
	return s, nil
}
