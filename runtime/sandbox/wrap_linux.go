//go:build linux

package sandbox

import (
	"fmt"
	"os/exec"
	"strings"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockABI is kernelABI, or what a test puts in its place.
var landlockABI = kernelABI

// kernelABI is the kernel's Landlock ABI version, 0 without Landlock.
func kernelABI() (int, string) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		reason := "kernel without Landlock"
		if err != nil {
			reason = fmt.Sprintf("kernel without Landlock: %v", err)
		}
		return abiNoKernel, reason
	}
	return v, ""
}

// missing lists what the kernel's ABI cannot enforce of eff.
func missing(eff *Effective, abi int) []string {
	var m []string
	if abi < abiFS {
		m = append(m, fmt.Sprintf("file truncation (ABI %d)", abiFS))
	}
	if eff.Network != NetworkAll && abi < abiTCP {
		m = append(m, fmt.Sprintf("TCP rules (ABI %d)", abiTCP))
	}
	if abi < abiScope {
		m = append(m, fmt.Sprintf("signal scoping (ABI %d)", abiScope))
	}
	return m
}

// wrapOS says how the server will be confined; the start function
// applies the rules (startConfined).
func wrapOS(cmd *exec.Cmd, eff *Effective) (string, string, func() error, error) {
	abi, reason := landlockABI()
	if abi == abiNoKernel {
		return StateUnavailable, reason, nil, nil
	}
	detail := fmt.Sprintf("Landlock ABI %d", abi)
	if m := missing(eff, abi); len(m) > 0 {
		if eff.Required {
			return StateUnavailable, detail + " cannot enforce " + strings.Join(m, ", "), nil, nil
		}
		detail += "; not enforced: " + strings.Join(m, ", ")
	}
	return StateActive, detail, func() error { return startConfined(cmd, eff, abi) }, nil
}

// Available reports whether this OS can confine a server (Linux: the
// kernel has Landlock), and if not, why.
func Available() (bool, string) {
	abi, reason := landlockABI()
	return abi != abiNoKernel, reason
}

// layers is what the kernel enforces (see Protections).
func layers() osLayers {
	abi, _ := landlockABI()
	if abi == abiNoKernel {
		return osLayers{setsid: true}
	}
	// Landlock (5.13) postdates seccomp user notification with ADDFD (5.9).
	return osLayers{name: fmt.Sprintf("Landlock ABI %d", abi), confines: true, abi: abi, seccomp: true, setsid: true, unixByABI: abi >= abiUnix, supervisor: true}
}
