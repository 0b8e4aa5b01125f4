package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/mcp-host/mcp-host/runtime/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A SandboxRow is one way of starting a stdio server: its start to the
// end of initialize as a ratio to the unsandboxed start, and the time it
// adds (the median of each round's difference).
type SandboxRow struct {
	Start string
	Ratio float64
	Added time.Duration
	Abs   time.Duration
	// Note, when set, says why the row was not measured.
	Note string
}

// stdioChild serves the bench server (echo only) on stdin and stdout: the
// stdio server the sandbox section starts.
func stdioChild(ctx context.Context) error {
	return NewServer(0).Run(ctx, &mcp.StdioTransport{})
}

// runSandbox compares starting a stdio server directly with starting it
// under the default and the strict sandbox policy, as the host does
// (resolving the policy, then Landlock applied to the thread that starts
// the server; sandbox-exec on macOS), in interleaved rounds: the start-up
// cost of the sandbox (docs/SANDBOX.md). The clock runs from before the
// policy is resolved to the end of initialize.
func runSandbox(cfg *Config, t *Table) error {
	names := []string{"stdio server start + initialize, no sandbox", "the same, default sandbox", "the same, strict sandbox"}
	if ok, why := sandbox.Available(); !ok {
		for _, n := range names {
			t.Sandbox = append(t.Sandbox, SandboxRow{Start: n, Note: "not run: no sandbox here (" + why + ")"})
		}
		return nil
	}
	dir, err := os.MkdirTemp("", "mcp-host-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	home, _ := os.UserHomeDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	start := func(policy *sandbox.Policy) (time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		began := time.Now()
		cmd := exec.Command(cfg.Self)
		cmd.Env, cmd.Dir = append(os.Environ(), childEnv+"=stdio"), dir
		run := cmd.Start
		if policy != nil {
			eff, err := sandbox.Resolve(*policy, sandbox.Context{Home: home, Cwd: dir, TempDir: tmp, Command: cfg.Self})
			if err != nil {
				return 0, err
			}
			st, confined, err := sandbox.Wrap(cmd, eff)
			if err != nil || st.State != sandbox.StateActive {
				return 0, fmt.Errorf("sandbox %s: %v", st, err)
			}
			run = confined
		}
		in, err := cmd.StdinPipe()
		if err != nil {
			return 0, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return 0, err
		}
		if err := run(); err != nil {
			return 0, fmt.Errorf("starting the stdio server %s: %w", cfg.Self, err)
		}
		defer cmd.Wait()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.IOTransport{Reader: out, Writer: in}, nil)
		d := time.Since(began)
		if err != nil {
			in.Close()
			return 0, fmt.Errorf("initializing the stdio server %s: %w", cfg.Self, err)
		}
		return d, cs.Close()
	}
	runs := []func() (time.Duration, error){
		func() (time.Duration, error) { return start(nil) },
		func() (time.Duration, error) { return start(&sandbox.Policy{}) },
		func() (time.Duration, error) { return start(&sandbox.Policy{Base: sandbox.BaseStrict}) },
	}
	for _, run := range runs { // warm the page cache
		if _, err := run(); err != nil {
			return err
		}
	}
	n := len(runs)
	abs, ratio, added := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	for r := range cfg.SandboxRounds {
		d := make([]float64, n)
		for _, i := range rotate(n, r) {
			v, err := runs[i]()
			if err != nil {
				return err
			}
			d[i] = float64(v)
			abs[i] = append(abs[i], d[i])
		}
		for i := range d {
			ratio[i], added[i] = append(ratio[i], d[i]/d[0]), append(added[i], d[i]-d[0])
		}
	}
	for i, name := range names {
		t.Sandbox = append(t.Sandbox, SandboxRow{Start: name, Ratio: median(ratio[i]),
			Added: time.Duration(median(added[i])), Abs: time.Duration(median(abs[i]))})
	}
	return nil
}
