//go:build !linux && !darwin

package sandbox

import (
	"os/exec"
	"runtime"
)

// wrapOS on Windows (and other systems) confines nothing.
func wrapOS(_ *exec.Cmd, _ *Effective) (string, string, func() error, error) {
	if runtime.GOOS == "windows" {
		return StateNone, "not sandboxed on Windows (environment allowlist only)", nil, nil
	}
	return StateUnavailable, "no sandbox on " + runtime.GOOS, nil, nil
}

// Available reports that this OS cannot confine a server, and why.
func Available() (bool, string) {
	return false, "no sandbox on " + runtime.GOOS
}

// layers: nothing is confined here; Unix systems still give the server
// a session of its own (see Protections).
func layers() osLayers {
	return osLayers{setsid: runtime.GOOS != "windows"}
}
