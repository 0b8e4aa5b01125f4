//go:build unix

package testenv

import (
	"os/exec"
	"syscall"
)

// OwnGroup starts cmd in a process group of its own.
func OwnGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// KillGroup kills cmd's whole process group.
func KillGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
