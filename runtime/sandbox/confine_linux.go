//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/mcp-host/mcp-host/runtime/sandbox/confine"
)

// configs are go-landlock's presets by ABI version.
var configs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// startConfined starts cmd (built by exec.Command, not yet started)
// under eff. The rules are applied to one OS thread of the host, which
// forks and execs the server and then ends with its goroutine: the server
// and every child it starts inherit them, while the host's other threads
// never carry them. Go gives the locked thread up when the goroutine
// returns without unlocking it, and makes new threads from a clean one
// while a goroutine is locked, so no restricted thread ever runs other
// host code. abi is the kernel's Landlock ABI; wrapOS has refused a
// required policy it cannot enforce.
//
// Before that thread ends, it shares the server's Landlock domain, which
// lets the server reach it for a few microseconds. [protectHost] closes
// that window: the host is not dumpable (no ptrace, no /proc/<pid>/mem)
// and the seccomp filter refuses signals aimed at the host's threads.
func startConfined(cmd *exec.Cmd, eff *Effective, abi int) error {
	cfg := landlock.V11.BestEffort()
	if eff.Required {
		cfg = configs[min(abi, abiNewest)-1]
	}
	if eff.Network == NetworkAll {
		cfg.HandledAccessNet = 0
	}
	rules, err := fsRules(eff)
	if err != nil {
		return err
	}
	rules = append(rules, netRules(eff)...)
	rules = append(rules, socketRules(eff, abi)...)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("sandbox: building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		// go-landlock's best effort found nothing to enforce: the status
		// says active, so the server must not start unconfined.
		return errors.New("sandbox: the kernel made no Landlock ruleset; the server does not start unconfined")
	}
	defer unix.Close(fd)
	if err := protectHost(); err != nil {
		return err
	}
	opts := filterOptions{supervised: true, onlyTCP: eff.Network != NetworkAll}
	if helper, _ := codeLayer(eff); helper != "" {
		if plan := mountPlan(eff); len(plan.ReadOnly) > 0 {
			return startInNamespace(cmd, eff, helper, fd, flags, opts, plan)
		}
	}
	listener := -1
	err = onThreadThatEnds(func() error {
		opts.startTID = unix.Gettid()
		var err error
		if listener, err = restrictThread(fd, flags, opts); err != nil {
			return err
		}
		return execError(cmd.Path, cmd.Start())
	})
	if listener >= 0 {
		if err != nil {
			unix.Close(listener)
		} else {
			go (&supervisor{fd: listener, eff: eff, session: cmd.Process.Pid}).run()
		}
	}
	return err
}

// socketRules grant connecting to the policy's UNIX sockets on kernels
// whose Landlock can (ABI 9); older ones ignore the right.
func socketRules(eff *Effective, abi int) []landlock.Rule {
	if abi < abiUnix {
		return nil
	}
	var rules []landlock.Rule
	for _, s := range eff.UnixSockets {
		rules = append(rules, landlock.PathAccess(llsys.AccessFSResolveUnix, s).IgnoreIfMissing())
	}
	return rules
}

// onThreadThatEnds runs fn on an OS thread of its own that ends when fn
// returns. That is never the main thread: Go keeps the main thread alive
// (parked) when its goroutine ends locked, and Landlock, signals and
// /proc/<pid> judge the process by that thread, so confining it would
// leave the host inside the server's domain for good. A goroutine that
// lands on the main thread keeps it locked (so no other can get it) while
// a new goroutine runs fn elsewhere.
func onThreadThatEnds(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // not unlocked after fn: the thread ends with this goroutine
		if unix.Gettid() == unix.Getpid() {
			done <- onThreadThatEnds(fn)
			runtime.UnlockOSThread()
			return
		}
		done <- fn()
	}()
	return <-done
}

// restrictThread confines the calling (locked) thread with the ruleset
// fd and the seccomp filter ([confine.Restrict]), and returns the
// supervisor's listener. Every kernel with Landlock (5.13) has seccomp
// user notification with ADDFD (5.9), so there is no start without the
// supervisor.
func restrictThread(fd int, flags uint32, opts filterOptions) (int, error) {
	prog, err := assembleFilter(serverFilter(opts))
	if err != nil {
		return -1, err
	}
	return confine.Restrict(fd, flags, prog, opts.supervised)
}

// execError says which path the sandbox refused, with the grant to fix it.
func execError(path string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("sandbox: the sandbox denied starting %s (%v); grant it with \"sandbox\": {\"filesystem\": {\"read\": [%q]}}", path, err, path)
	}
	return fmt.Errorf("sandbox: starting %s: %w", path, err)
}

// netRules grants the TCP ports of a "host:port" allowlist, or only the
// filtering proxy's port when the host runs one for the server. Landlock
// matches ports, not hosts: see docs/SANDBOX.md.
func netRules(eff *Effective) []landlock.Rule {
	if eff.Network != NetworkAllow {
		return nil
	}
	if eff.ProxyPort != 0 {
		return []landlock.Rule{landlock.ConnectTCP(eff.ProxyPort)}
	}
	var rules []landlock.Rule
	for _, hp := range eff.Allow {
		// "host:*" needs the proxy: by port alone it would open every
		// port, so without one it grants nothing.
		if _, port, err := splitHostPort(hp); err == nil && port != 0 {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	return rules
}

// protectHost makes the host process not dumpable, once, before its first
// sandboxed start: no process of the user's (a server included) may then
// ptrace it, read its memory through /proc/<pid>/mem or /proc/<pid>/environ,
// or take its file descriptors, whatever Landlock allows. ssh-agent and
// gpg-agent do the same for the keys they hold; the host holds tokens.
// Its own /proc/self stays readable to it; core dumps are off.
var protectHost = sync.OnceValue(func() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: prctl(PR_SET_DUMPABLE, 0): %w", err)
	}
	return nil
})
