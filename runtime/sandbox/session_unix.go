//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// ownSession starts cmd in a session of its own (setsid), whatever its
// caller asked: no controlling terminal (no /dev/tty, no TIOCSTI, no
// foreground), and the supervisor knows the server's processes by their
// session. A new session is a new process group too.
func ownSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid = false
	cmd.SysProcAttr.Setctty = false
	cmd.SysProcAttr.Foreground = false
}
