package runtime

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"

	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// SandboxOptions turn on the OS sandbox for stdio servers (see package
// sandbox): each starts under its "sandbox" policy, by default the default
// one.
type SandboxOptions struct {
	// HostPaths are the host's own state (config, token file, approvals,
	// permissions, caches): no server reads or writes them.
	HostPaths []string
	// StateRoot holds each server's private state, <StateRoot>/<id>: its
	// launcher caches and, when its config names no cwd, its working
	// directory (see sandbox.Context.StateDir). Beside it,
	// <StateRoot>/../launchers/<id> holds what the host installs for a
	// launcher without network (sandbox.Context.LauncherDir); StateRoot's
	// parent must be among HostPaths. "" keeps the host's cwd and the
	// user's shared caches.
	StateRoot string
}

// SandboxContext is what a server's policy resolves against: the host's
// home, the server's cwd (its config's, else its private work directory,
// else the host's), its private state, temporary directory tmp ("" before
// the first start), command, arguments and env. `host mcp add` and the
// runtime use it alike, so what add shows is what the server gets.
func SandboxContext(so *SandboxOptions, id string, cfg *config.ServerConfig, command, tmp string) sandbox.Context {
	home, _ := os.UserHomeDir()
	ctx := sandbox.Context{Home: home, Cwd: cfg.Cwd, TempDir: tmp, Command: command, Args: cfg.Args, Env: cfg.Env}
	if so != nil {
		ctx.HostPaths = so.HostPaths
		if so.StateRoot != "" && !cfg.SandboxPolicy().Off && goruntime.GOOS != "windows" {
			ctx.StateDir = filepath.Join(so.StateRoot, id)
			// Beside the servers' states, not in one: no server writes it.
			ctx.LauncherDir = filepath.Join(filepath.Dir(so.StateRoot), "launchers", id)
			if ctx.Cwd == "" {
				ctx.Cwd = filepath.Join(ctx.StateDir, "work")
			}
		}
	}
	if ctx.Cwd == "" {
		ctx.Cwd, _ = os.Getwd()
	}
	return ctx
}

// sandboxContext is SandboxContext for this server.
func (sv *server) sandboxContext(cfg *config.ServerConfig, command, tmp string) sandbox.Context {
	return SandboxContext(sv.m.opts.Sandbox, sv.entry.ID, cfg, command, tmp)
}

// sandboxPreview is the status's sandbox before the server starts: the
// policy's summary, so that mcp get and the approval prompt show it.
func (sv *server) sandboxPreview() *sandbox.Status {
	cfg := &sv.entry.Config
	if sv.m.opts.Sandbox == nil || sv.entry.Err != nil || cfg.TransportName() != "stdio" {
		return nil
	}
	eff, err := sandbox.Resolve(cfg.SandboxPolicy(), sv.sandboxContext(cfg, cfg.Command, ""))
	if err != nil {
		return nil
	}
	eff.PlanProxy()
	return &sandbox.Status{State: sandbox.StatePending, Summary: eff.Summary(), Protections: sandbox.Protections(eff)}
}

// sandboxWrap confines a stdio server's command as its policy says (see
// session.Options.WrapCommand); nil when the manager has no sandbox.
func (sv *server) sandboxWrap(cfg *config.ServerConfig) func(*exec.Cmd) (func() error, error) {
	so := sv.m.opts.Sandbox
	if so == nil || cfg.TransportName() != "stdio" {
		return nil
	}
	return func(cmd *exec.Cmd) (func() error, error) {
		tmp, err := sv.tempDir()
		if err != nil {
			return nil, err
		}
		ctx := sv.sandboxContext(cfg, cmd.Path, tmp)
		pol := cfg.SandboxPolicy()
		if !pol.Off {
			if cmd.Dir == "" {
				// The server's private work directory, not the host's
				// cwd (which may be a repository or the home directory).
				if err := os.MkdirAll(ctx.Cwd, 0o700); err != nil {
					return nil, fmt.Errorf("sandbox: the server's work directory: %w", err)
				}
				cmd.Dir = ctx.Cwd
			}
		}
		if cmd.Dir != "" {
			ctx.Cwd = cmd.Dir
		}
		eff, err := sandbox.Resolve(pol, ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errConfig, err)
		}
		if !pol.Off {
			for k, v := range sandbox.LauncherEnv(ctx, eff.Network == sandbox.NetworkNone) {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		if err := sv.startProxy(cmd, eff); err != nil {
			return nil, err
		}
		st, start, err := sandbox.Wrap(cmd, eff)
		sv.mu.Lock()
		if sv.fetched != "" {
			st.Protections = append(st.Protections, "launcher: "+sv.fetched)
		}
		sv.mu.Unlock()
		sv.update(func(s *Status) { s.Sandbox = &st })
		if err != nil {
			return nil, required(err)
		}
		return func() error { return required(start()) }, nil
	}
}

// required marks a sandbox error that keeps a server from starting
// because its policy says "required" as a configuration error.
func required(err error) error {
	if errors.Is(err, sandbox.ErrRequired) {
		return fmt.Errorf("%w: %w (the policy says \"required\": true)", errConfig, err)
	}
	return err
}

// tempDir is the server's private temporary directory (TMPDIR), made on
// first use and removed when the server stops (see removeTempDir).
func (sv *server) tempDir() (string, error) {
	if goruntime.GOOS == "windows" {
		return "", nil
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.tmp != "" {
		if _, err := os.Stat(sv.tmp); err == nil {
			return sv.tmp, nil
		}
	}
	dir, err := os.MkdirTemp("", "mcp-host-"+sv.entry.ID+"-")
	if err != nil {
		return "", fmt.Errorf("sandbox temp dir: %w", err)
	}
	sv.tmp = dir
	return dir, nil
}

// removeTempDir removes the server's temporary directory, if any.
func (sv *server) removeTempDir() {
	sv.mu.Lock()
	dir := sv.tmp
	sv.tmp = ""
	sv.mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

// withSandboxHint adds to a failed start of a sandboxed server what the
// sandbox may have denied it (see sandbox.Hint).
func (sv *server) withSandboxHint(err error) error {
	if err == nil || errors.Is(err, errConfig) {
		return err
	}
	return sv.withHint(err, sandbox.Hint)
}

// withExitHint adds to a request that failed because a sandboxed
// server's process exited (session.ExitedError) the path or address its
// stderr tail says the sandbox refused it, with the grant that allows it
// (sandbox.Denied, as a failed start says it); a crash that names no
// refusal is left as it is.
func (sv *server) withExitHint(err error) error {
	var exited *session.ExitedError
	if !errors.As(err, &exited) {
		return err
	}
	return sv.withHint(err, sandbox.Denied)
}

// withHint appends what hint reads in err for the server's sandbox, if
// it is confined and hint says anything.
func (sv *server) withHint(err error, hint func(string, sandbox.Status) string) error {
	sv.mu.Lock()
	st := sv.status.Sandbox
	sv.mu.Unlock()
	if st == nil {
		return err
	}
	if h := hint(err.Error(), *st); h != "" {
		return fmt.Errorf("%w; %s", err, h)
	}
	return err
}

// SandboxHint explains what a server said (a tool's error, its stderr)
// when its sandbox refused it: the refused path or address with the grant
// that allows it (sandbox.Denied); "" when the server is not confined or
// said nothing the sandbox refuses.
func (m *Manager) SandboxHint(id, said string) string {
	st, err := m.Get(id)
	if err != nil || st.Sandbox == nil {
		return ""
	}
	return sandbox.Denied(said, *st.Sandbox)
}
