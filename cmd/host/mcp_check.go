package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/termsafe"
)

// test connects the named servers, or every enabled one, all at once (a
// server that takes a while to start does not hold up the others), and
// prints one line for each. The exit code is 0 when every one is ready,
// else that of the first that is not, in id order.
func (c *cli) test(args []string) int {
	fs := newFlagSet("test", c.stderr)
	probeTool := fs.String("probe", "", "after connecting, call this tool (one server only); without it, the first read-only tool that takes no argument")
	probeArgs := fs.String("args", "", "the probe's arguments as a JSON object")
	noProbe := fs.Bool("no-probe", false, "only connect and list tools")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	eff, err := c.load()
	if err != nil {
		return c.failf(exitUsage, "test: %v", err)
	}
	entries, code := c.testEntries(eff, pos)
	if code >= 0 {
		return code
	}
	if len(entries) == 0 {
		fmt.Fprintf(c.stdout, "no enabled MCP servers to test (global %s, project %s)\n", c.global, c.project)
		return exitOK
	}
	if (*probeTool != "" || *probeArgs != "") && len(entries) != 1 {
		return c.failf(exitUsage, "test: --probe and --args need one server")
	}
	if len(entries) == 1 {
		e := entries[0]
		fmt.Fprintf(c.stderr, "connecting to %s (%s)…\n", termsafe.Line(e.ID), describeTarget(e.Config))
	} else {
		fmt.Fprintf(c.stderr, "connecting to %d servers at once…\n", len(entries))
	}
	start := time.Now()
	m := runtime.NewManager(c.managerOptions())
	defer m.Close()
	m.Apply(entries)
	wait := time.Duration(0)
	for _, e := range entries {
		wait = max(wait, e.Config.StartupTimeout()+5*time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	sts, _ := m.WaitSettled(ctx)
	code = exitOK
	for _, st := range sts {
		elapsed := time.Since(start)
		if st.State == runtime.StateReady && !st.LastConnectedAt.IsZero() {
			elapsed = st.LastConnectedAt.Sub(start)
		}
		printTest(c.stdout, st, elapsed.Round(time.Millisecond))
		if c := exitFor(st); c != exitOK && code == exitOK {
			code = c
		}
	}
	if len(sts) == 1 && sts[0].State == runtime.StateReady && !*noProbe {
		if p := c.probe(m, sts[0].ID, *probeTool, *probeArgs); code == exitOK {
			code = p
		}
	}
	return code
}

// testEntries are the servers test connects: those named (turned on for
// the test if disabled), or every enabled one. A named server that is not
// configured or whose entry is invalid is a usage error.
func (c *cli) testEntries(eff *config.Effective, ids []string) ([]config.ServerEntry, int) {
	byID := map[string]config.ServerEntry{}
	for _, e := range eff.Servers {
		byID[e.ID] = e
	}
	var out []config.ServerEntry
	if len(ids) == 0 {
		for _, e := range eff.Servers {
			if e.Config.IsEnabled() {
				out = append(out, e)
			}
		}
		return out, -1
	}
	seen := map[string]bool{}
	for _, id := range ids {
		e, ok := byID[id]
		switch {
		case !ok:
			return nil, c.failf(exitUsage, "test: no server %q in %s or %s", id, c.global, c.project)
		case e.Err != nil:
			return nil, c.failf(exitUsage, "test: %v", e.Err)
		case seen[id]:
			continue
		}
		seen[id] = true
		if !e.Config.IsEnabled() {
			on := true
			e.Config.Enabled = &on
		}
		out = append(out, e)
	}
	return out, -1
}

// printTest prints one server's test result. The server's name, version
// and protocol, and errors that quote it, are its own words: one
// terminal-safe line each.
func printTest(w io.Writer, st runtime.Status, elapsed time.Duration) {
	id, lastErr := termsafe.Line(st.ID), termsafe.LineMax(ownError(st.ID, st.LastError), maxErrorLine)
	switch st.State {
	case runtime.StateReady:
		fmt.Fprintf(w, "ok: %s is ready in %s: %s %s, protocol %s, transport %s, %d tools\n",
			id, elapsed, termsafe.Line(st.ServerName), termsafe.Line(st.ServerVersion), termsafe.Line(st.ProtocolVersion), st.Transport, st.Tools)
	case runtime.StateAuthRequired:
		fmt.Fprintf(w, "login required: %s: %s (run: host mcp login %s)\n", id, lastErr, id)
	case runtime.StateApprovalRequired:
		fmt.Fprintf(w, "not approved: %s: %s (run: host mcp approve %s)\n", id, lastErr, id)
	case runtime.StateBlockedByPolicy:
		fmt.Fprintf(w, "blocked_by_policy: %s: %s\n", id, lastErr)
	default:
		fmt.Fprintf(w, "failed: %s after %s: %s\n", id, elapsed, lastErr)
		if st.Stderr != "" {
			fmt.Fprintf(w, "stderr (tail):\n%s\n", indent(strings.TrimRight(st.Stderr, "\n")))
		}
	}
}
