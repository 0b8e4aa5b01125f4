//go:build darwin

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
)

// sandboxExec is macOS's Seatbelt front end.
const sandboxExec = "/usr/bin/sandbox-exec"

// wrapOS runs the server through sandbox-exec with the policy's profile.
func wrapOS(cmd *exec.Cmd, eff *Effective) (string, string, func() error, error) {
	if _, err := os.Stat(sandboxExec); err != nil {
		return StateUnavailable, fmt.Sprintf("%s not found", sandboxExec), nil, nil
	}
	args := append([]string{sandboxExec, "-p", Profile(eff), cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = sandboxExec, args
	return StateActive, "Seatbelt via sandbox-exec", cmd.Start, nil
}

// Available reports whether this OS can confine a server (macOS:
// sandbox-exec is there), and if not, why.
func Available() (bool, string) {
	if _, err := os.Stat(sandboxExec); err != nil {
		return false, sandboxExec + " not found"
	}
	return true, ""
}

// layers is what Seatbelt enforces (see Protections).
func layers() osLayers {
	ok, _ := Available()
	return osLayers{name: "Seatbelt", confines: ok, seatbelt: true, setsid: true}
}
