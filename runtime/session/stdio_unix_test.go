//go:build unix

package session_test

import "syscall"

func setsidAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
