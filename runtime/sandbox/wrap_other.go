//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
)

// wrapOS on Windows (and other systems) confines nothing.
func wrapOS(_ *exec.Cmd, _ *Effective, _ string) (string, string, error) {
	if runtime.GOOS == "windows" {
		return StateNone, "not sandboxed on Windows (environment allowlist only)", nil
	}
	return StateUnavailable, "no sandbox on " + runtime.GOOS, nil
}

func applyAndExec(_ *Effective, _ string, _ []string) error {
	return errors.New("sandbox launcher: not supported on " + runtime.GOOS)
}

// Available reports that this OS cannot confine a server, and why.
func Available() (bool, string) {
	return false, "no sandbox on " + runtime.GOOS
}
