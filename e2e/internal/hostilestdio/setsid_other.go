//go:build !unix

package main

import "syscall"

// newSession has no meaning here: the child stays in its parent's job.
func newSession() *syscall.SysProcAttr { return nil }
