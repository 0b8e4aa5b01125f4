// Command mcpbench runs `make bench`: every comparison of
// docs/PERFORMANCE.md in one run, printed as a Markdown table of ratios.
//
//	go run ./bench/cmd/mcpbench [-smoke] [-only calls|catalog|servers|oneshot|sandbox|lazy|soak] [-soak-scale N]
//
// Run it from the module root (or pass -root).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/mcp-host/mcp-host/bench"
)

func main() {
	if bench.RunChild() {
		return
	}
	root := flag.String("root", ".", "the module's root directory")
	smoke := flag.Bool("smoke", false, "run every measurement once, tiny")
	only := flag.String("only", "", "run only this section: calls, catalog, servers, oneshot, sandbox, lazy or soak (soak runs only when named)")
	soakScale := flag.Int("soak-scale", 1, "multiply the soak's work (1: a few minutes; 50: hours)")
	flag.Parse()
	cfg := bench.Full(*root)
	if *smoke {
		cfg = bench.Smoke(*root)
	}
	cfg.Only = *only
	cfg.Soak = bench.DefaultSoak().Scaled(*soakScale)
	cfg.Progress = os.Stderr
	t, err := bench.Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpbench: %v\n", err)
		os.Exit(1)
	}
	fmt.Print(t.Markdown())
	fmt.Fprintf(os.Stderr, "bench: done in %s\n", t.Elapsed.Round(1e9))
}
