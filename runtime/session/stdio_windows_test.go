//go:build windows

package session_test

import "syscall"

// setsidAttr has no Windows meaning: a child is in its parent's job anyway.
func setsidAttr() *syscall.SysProcAttr { return nil }
