//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// configs are go-landlock's presets by ABI version.
var configs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// applyAndExec restricts this process to eff and execs path: on success
// it does not return.
func applyAndExec(eff *Effective, path string, argv []string) error {
	if err := restrict(eff); err != nil {
		return err
	}
	err := syscall.Exec(path, argv, os.Environ())
	return execError(path, err)
}

// restrict applies eff to the calling thread, which stays locked: the
// exec that follows must come from it. Without Landlock (and not
// required) it applies nothing: the host already showed the server as
// unavailable.
func restrict(eff *Effective) error {
	abi, reason := landlockABI()
	if abi == abiNoKernel {
		if eff.Required {
			return fmt.Errorf("sandbox: %w: %s", ErrRequired, reason)
		}
		return nil
	}
	cfg := landlock.V11.BestEffort()
	if eff.Required {
		if m := missing(eff, abi); len(m) > 0 {
			return fmt.Errorf("sandbox: %w: Landlock ABI %d cannot enforce %v", ErrRequired, abi, m)
		}
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
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("sandbox: building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return nil
	}
	defer unix.Close(fd)
	runtime.LockOSThread() // never unlocked: the exec comes from this thread
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
	}
	dropCapabilities()
	if eff.Network == NetworkNone && abi < abiUDP {
		if err := denyDatagrams(); err != nil && eff.Required {
			return fmt.Errorf("sandbox: %w: seccomp for UDP: %v", ErrRequired, err)
		}
	}
	return nil
}

// execError says which path the sandbox refused, with the grant to fix it.
func execError(path string, err error) error {
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

// dropCapabilities empties the bounding set, so that the server (which a
// host run as root would start with every capability) gets none at exec:
// measured on Linux 6.18, a root server kept the capabilities to read
// /proc/<host pid>/environ (the host's API keys) past Landlock's ptrace
// rule, which holds for a server without them. Not root, there is nothing
// to drop and the kernel refuses the drop (ignored).
func dropCapabilities() {
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return
		}
	}
}
