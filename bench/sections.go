package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// runCalls measures the call paths in interleaved rounds.
func runCalls(ctx context.Context, cfg *Config, t *Table) error {
	srv, urls, err := startServers(cfg.Self)
	if err != nil {
		return err
	}
	defer srv.stop()
	url := urls[0]
	var paths []*callPath
	defer func() {
		for _, p := range paths {
			p.close()
		}
	}()
	for _, open := range []func(context.Context, string) (*callPath, error){rawPath, sdkPath, sessionPath, fullPath} {
		p, err := open(ctx, url)
		if err != nil {
			return err
		}
		paths = append(paths, p)
	}
	tsNote := ""
	if node, modules, err := nodeAndModules(cfg.Root); err != nil {
		tsNote = "not run: " + err.Error()
	} else if p, err := tsPath(ctx, node, modules, filepath.Join(cfg.Root, "bench", "ts", "client.mjs"), url); err != nil {
		return err
	} else {
		paths = append(paths, p)
	}
	const bare = 1 // index of the bare go-sdk path, the reference
	// Warm up every path (connections, JIT, caches) outside the rounds.
	for _, p := range paths {
		if _, err := p.timed(ctx, max(cfg.SeqCalls/4, 2), 1); err != nil {
			return err
		}
	}
	n := len(paths)
	seq, par := make([][]float64, n), make([][]float64, n)
	seqRatio, parRatio := make([][]float64, n), make([][]float64, n)
	conns := make([]int64, n)
	for r := range cfg.Rounds {
		seqD, parD := make([]time.Duration, n), make([]time.Duration, n)
		for _, i := range rotate(n, r) {
			before, err := connCount(url)
			if err != nil {
				return err
			}
			if seqD[i], err = paths[i].timed(ctx, cfg.SeqCalls, 1); err != nil {
				return err
			}
			if parD[i], err = paths[i].timed(ctx, cfg.ParCalls, cfg.Parallel); err != nil {
				return err
			}
			after, err := connCount(url)
			if err != nil {
				return err
			}
			conns[i] += after - before
		}
		for i := range n {
			s, p := float64(seqD[i])/float64(cfg.SeqCalls), float64(parD[i])/float64(cfg.ParCalls)
			seq[i], par[i] = append(seq[i], s), append(par[i], p)
			seqRatio[i] = append(seqRatio[i], s/(float64(seqD[bare])/float64(cfg.SeqCalls)))
			parRatio[i] = append(parRatio[i], p/(float64(parD[bare])/float64(cfg.ParCalls)))
		}
		cfg.logf("calls: round %d of %d done", r+1, cfg.Rounds)
	}
	for i, p := range paths {
		row := CallRow{Path: p.name, Seq: median(seqRatio[i]), Par: median(parRatio[i]),
			SeqAbs: time.Duration(median(seq[i])), ParAbs: time.Duration(median(par[i])),
			ConnsPer1000: float64(conns[i]) * 1000 / float64(cfg.Rounds*(cfg.SeqCalls+cfg.ParCalls)), Allocs: -1}
		if p.call != nil {
			if row.Allocs, row.AllocBytes, err = p.allocs(ctx, cfg.AllocCalls); err != nil {
				return err
			}
		}
		t.Calls = append(t.Calls, row)
	}
	if tsNote != "" {
		t.Calls = append(t.Calls, CallRow{Path: "TypeScript SDK", Note: tsNote, Allocs: -1})
	}
	return nil
}

// runCatalog measures connect + list of a large catalog, each client in a
// process of its own for its peak RSS.
func runCatalog(cfg *Config, t *Table) error {
	srv, urls, err := startServers(cfg.Self, "-tools", strconv.Itoa(cfg.CatalogTools))
	if err != nil {
		return err
	}
	defer srv.stop()
	// The host's list cache, filled by one run before the rounds: the
	// server's lists say ttlMs, so the cached row's connects find them
	// fresh there.
	cacheDir, err := os.MkdirTemp("", "mcpbench-cache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cacheDir)
	os.Setenv(cacheEnv, cacheDir)
	if _, _, err := measure(cfg.Self, "catalog-host-cached", urls[0]); err != nil {
		return err
	}
	modes := []string{"catalog-bare", "catalog-host", "catalog-host-cached", "catalog-floor"}
	var times, rss [4][]float64
	var timeRatio, rssRatio [4][]float64
	tools := [4]int{}
	for r := range cfg.CatalogRounds {
		var d, m [4]float64
		for _, i := range rotate(len(modes), r) {
			res, peak, err := measure(cfg.Self, modes[i], urls[0])
			if err != nil {
				return err
			}
			d[i], m[i], tools[i] = float64(res.NS), float64(peak), res.Tools
			times[i], rss[i] = append(times[i], d[i]), append(rss[i], m[i])
		}
		for i := 1; i < len(modes); i++ {
			timeRatio[i] = append(timeRatio[i], d[i]/d[0])
			if m[0] > 0 {
				rssRatio[i] = append(rssRatio[i], m[i]/m[0])
			}
		}
		cfg.logf("catalog: round %d of %d done", r+1, cfg.CatalogRounds)
	}
	for i := range tools {
		if tools[i] != cfg.CatalogTools+1 {
			return fmt.Errorf("%s listed %d tools, want %d", modes[i], tools[i], cfg.CatalogTools+1)
		}
	}
	t.CatalogTools = cfg.CatalogTools
	t.Catalog = []CatalogRow{
		{Path: "bare go-sdk connect + list", Time: 1, RSS: 1, TimeAbs: time.Duration(median(times[0])), RSSAbs: int64(median(rss[0]))},
		{Path: "mcp-host Manager connect + list + adapt (Manager.Catalog)", Time: median(timeRatio[1]), RSS: median(rssRatio[1]),
			TimeAbs: time.Duration(median(times[1])), RSSAbs: int64(median(rss[1]))},
		{Path: "the same with a fresh list cache (ttlMs, SEP-2549): no tools/list", Time: median(timeRatio[2]), RSS: median(rssRatio[2]),
			TimeAbs: time.Duration(median(times[2])), RSSAbs: int64(median(rss[2]))},
		{Path: "raw HTTP floor: the pages read one after the other, nothing decoded", Time: median(timeRatio[3]), RSS: median(rssRatio[3]),
			TimeAbs: time.Duration(median(times[3])), RSSAbs: int64(median(rss[3]))},
	}
	return nil
}

// runMany measures connecting many servers at once against the slowest
// of them alone, for the bare SDK and the host, each in its own process.
func runMany(cfg *Config, t *Table) error {
	srv, urls, err := startServers(cfg.Self, "-servers", strconv.Itoa(cfg.ManyServers),
		"-latency-min", "10ms", "-latency-max", "50ms")
	if err != nil {
		return err
	}
	defer srv.stop()
	slowest := urls[len(urls)-1:]
	type job struct {
		mode string
		urls []string
	}
	jobs := []job{{"many-bare", urls}, {"many-bare", slowest}, {"many-host", urls}, {"many-host", slowest}}
	var abs [4][]float64
	var bareRatio, hostRatio, hostVsBare []float64
	for r := range cfg.ManyRounds {
		var d [4]float64
		for _, i := range rotate(len(jobs), r) {
			res, _, err := measure(cfg.Self, jobs[i].mode, jobs[i].urls...)
			if err != nil {
				return err
			}
			d[i] = float64(res.NS)
			abs[i] = append(abs[i], d[i])
		}
		bareRatio, hostRatio = append(bareRatio, d[0]/d[1]), append(hostRatio, d[2]/d[3])
		hostVsBare = append(hostVsBare, d[2]/d[0])
		cfg.logf("servers: round %d of %d done", r+1, cfg.ManyRounds)
	}
	t.ManyServers = cfg.ManyServers
	t.Many = []ManyRow{
		{Client: "bare go-sdk (connect + tools/list each)", Ratio: median(bareRatio), AllAbs: time.Duration(median(abs[0])), SlowestAbs: time.Duration(median(abs[1])), VsBare: 1},
		{Client: "mcp-host Manager (all ready)", Ratio: median(hostRatio), AllAbs: time.Duration(median(abs[2])), SlowestAbs: time.Duration(median(abs[3])), VsBare: median(hostVsBare)},
	}
	return nil
}

// runOneShot compares `host mcp call` with a one-shot go-sdk program, each
// a fresh process per call.
func runOneShot(cfg *Config, t *Table) error {
	dir, err := os.MkdirTemp("", "mcp-host-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg.logf("building cmd/host and bench/cmd/sdkcall")
	host, sdkcall, err := buildBinaries(cfg.Root, dir)
	if err != nil {
		return err
	}
	srv, urls, err := startServers(cfg.Self)
	if err != nil {
		return err
	}
	defer srv.stop()
	env, err := oneShotSetup(dir, urls[0])
	if err != nil {
		return err
	}
	// The host's list cache: emptied before each cold call, kept (the bench
	// server's lists say ttlMs) for the warm ones.
	cold, warm := filepath.Join(dir, "cache-cold"), filepath.Join(dir, "cache-warm")
	call := func(cache string) (time.Duration, error) {
		if cache == cold {
			if err := os.RemoveAll(cold); err != nil {
				return 0, err
			}
		}
		return oneShot(host, append(env, "MCP_HOST_CACHE_DIR="+cache), dir, "mcp", "call", "bench", "echo", "--args", `{"text":"hello"}`, "--yes")
	}
	runs := []func() (time.Duration, error){
		func() (time.Duration, error) { return oneShot(sdkcall, os.Environ(), dir, urls[0]) },
		func() (time.Duration, error) { return call(cold) },
		func() (time.Duration, error) { return call(warm) },
		// The host binary's start and exit alone, to tell its package
		// initialization from the call's work.
		func() (time.Duration, error) { return oneShot(host, env, dir, "version") },
	}
	for _, run := range runs { // warm the page cache
		if _, err := run(); err != nil {
			return err
		}
	}
	var abs, ratio [4][]float64
	for r := range cfg.OneShotRounds {
		var d [4]float64
		for _, i := range rotate(len(runs), r) {
			v, err := runs[i]()
			if err != nil {
				return err
			}
			d[i] = float64(v)
			abs[i] = append(abs[i], d[i])
		}
		for i := range d {
			ratio[i] = append(ratio[i], d[i]/d[0])
		}
	}
	names := []string{"one-shot go-sdk program (bench/cmd/sdkcall)", "host mcp call (HTTP, --yes), empty list cache",
		"host mcp call, the tool list fresh in the list cache (ttlMs)", "host version (start and exit only)"}
	for i, name := range names {
		t.OneShot = append(t.OneShot, OneShotRow{Program: name, Ratio: median(ratio[i]), Abs: time.Duration(median(abs[i]))})
	}
	return nil
}
