//go:build unix

package main

import "syscall"

// newSession starts a child in a session of its own (setsid).
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
