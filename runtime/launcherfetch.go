package runtime

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/internal/statefile"
	"github.com/mcp-host/mcp-host/internal/stderrtail"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/process"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// maxFetch bounds a launcher's fetch before a start without network.
const maxFetch = 5 * time.Minute

// maxLauncherFile bounds a file of a launcher's install the host reads
// (its record, a package's manifest).
const maxLauncherFile = 1 << 20

// fetchLauncher installs, before a stdio server without network starts,
// what its launcher would download at start (see sandbox.PlanFetch): npm
// runs confined like the server but with the network, writing only the
// server's private prefix and npm cache and running nothing of the
// package. It returns the program the server runs instead of its
// launcher, or "" to run its command as it is. The server's status says
// so while the install runs and after.
func (sv *server) fetchLauncher(ctx context.Context, cfg *config.ServerConfig) (string, []string, error) {
	so := sv.m.opts.Sandbox
	if so == nil || cfg.TransportName() != "stdio" || cfg.SandboxPolicy().Off || goruntime.GOOS == "windows" || !sandbox.IsNpx(cfg.Command) {
		return "", nil, nil // nothing to install: no lookup, no policy resolved on this start
	}
	command, err := exec.LookPath(cfg.Command)
	if err != nil {
		return "", nil, nil // the start names the missing command
	}
	sctx := sv.sandboxContext(cfg, command, "")
	eff, err := sandbox.Resolve(cfg.SandboxPolicy(), sctx)
	if err != nil {
		return "", nil, nil // the start says what is wrong with the policy
	}
	host := os.Environ()
	env := process.Environ(goruntime.GOOS, host, cfg.Env, cfg.EnvVars)
	f := sandbox.PlanFetch(eff, sctx, command, cfg.Args, env, host)
	if f == nil {
		return "", nil, nil
	}
	if old, err := statefile.Read(f.Record, maxLauncherFile); err != nil || !bytes.Equal(old, f.RecordData()) {
		sv.m.opts.Logger.Info("installing before a start without network", "server", sv.entry.ID, "packages", strings.Join(f.Packages, " "))
		sv.update(func(s *Status) {
			s.Sandbox = &sandbox.Status{State: sandbox.StatePending, Detail: "installing " + strings.Join(f.Packages, ", ") + " with the network, without running its code", Summary: eff.Summary(), Protections: sandbox.Protections(eff)}
		})
		if err := sv.runFetch(ctx, f, sctx); err != nil {
			sv.update(func(s *Status) { s.Sandbox = sv.sandboxPreview() })
			return "", nil, fmt.Errorf("installing %s before a start without network: %w", strings.Join(f.Packages, ", "), err)
		}
		// By a rename: a link where the record goes is replaced, never
		// written through.
		if err := atomicfile.WriteFile(f.Record, f.RecordData(), 0o600); err != nil {
			return "", nil, fmt.Errorf("record the install of %s: %w", strings.Join(f.Packages, ", "), err)
		}
	}
	program, args, err := f.Program(func(path string) ([]byte, error) { return statefile.Read(path, maxLauncherFile) })
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", errConfig, err)
	}
	sv.mu.Lock()
	sv.fetched = f.String()
	sv.mu.Unlock()
	return program, args, nil
}

// runFetch runs f's command under its policy, confined like a server.
func (sv *server) runFetch(ctx context.Context, f *sandbox.Fetch, sctx sandbox.Context) error {
	for _, dir := range f.Policy.Write {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("make %s: %w", dir, err)
		}
	}
	tmp, err := os.MkdirTemp("", "mcp-host-fetch-"+sv.entry.ID+"-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	// Its cwd is the prefix, not the server's work directory, which the
	// strict base would then let it write.
	sctx.TempDir, sctx.Command, sctx.Cwd = tmp, f.Cmd.Path, f.Prefix
	eff, err := sandbox.Resolve(f.Policy, sctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, maxFetch)
	defer cancel()
	var out stderrtail.Tail
	f.Cmd.Stdout, f.Cmd.Stderr = &out, &out
	_, start, err := sandbox.Wrap(f.Cmd, eff)
	if err != nil {
		return err
	}
	if err := start(); err != nil {
		return fmt.Errorf("start npm: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- f.Cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = f.Cmd.Process.Kill()
		<-done
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("npm: %w: %s", err, out.Last(5))
	}
	return nil
}
