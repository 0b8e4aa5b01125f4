//go:build unix

package main

import (
	"os"
	"syscall"
)

// killParent sends SIGTERM to the process that started this one.
func killParent() error { return syscall.Kill(os.Getppid(), syscall.SIGTERM) }
