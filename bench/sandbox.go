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
// under the default sandbox policy, through host-sandbox (the launcher
// make build puts beside host) and through host itself, in interleaved
// rounds: the start-up cost of the sandbox (docs/SANDBOX.md).
func runSandbox(cfg *Config, t *Table) error {
	names := []string{"stdio server start + initialize, no sandbox", "the same, default sandbox via host-sandbox", "the same, default sandbox via host"}
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
	cfg.logf("building cmd/host and cmd/host-sandbox")
	host, launcher := filepath.Join(dir, "host"), filepath.Join(dir, "host-sandbox")
	for out, pkg := range map[string]string{host: "./cmd/host", launcher: "./cmd/host-sandbox"} {
		if err := goBuild(cfg.Root, out, pkg); err != nil {
			return err
		}
	}
	home, _ := os.UserHomeDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	start := func(through string) (time.Duration, error) {
		cmd := exec.Command(cfg.Self)
		cmd.Env, cmd.Dir = append(os.Environ(), childEnv+"=stdio"), dir
		if through != "" {
			eff, err := sandbox.Resolve(sandbox.Policy{}, sandbox.Context{Home: home, Cwd: dir, TempDir: tmp, Command: cfg.Self})
			if err != nil {
				return 0, err
			}
			if st, err := sandbox.Wrap(cmd, eff, through); err != nil || st.State != sandbox.StateActive {
				return 0, fmt.Errorf("sandbox %s: %v", st, err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		began := time.Now()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		d := time.Since(began)
		if err != nil {
			return 0, fmt.Errorf("starting the stdio server %s: %w", cmd.Path, err)
		}
		return d, cs.Close()
	}
	runs := []func() (time.Duration, error){
		func() (time.Duration, error) { return start("") },
		func() (time.Duration, error) { return start(launcher) },
		func() (time.Duration, error) { return start(host) },
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

// goBuild builds the package pkg of the module at root into out.
func goBuild(root, out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}
