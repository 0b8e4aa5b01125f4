//go:build unix

package testenv

import (
	"errors"
	"syscall"
)

// gone reports that no process has the pid.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
