//go:build !linux

package main

import "errors"

// killHostThreads: thread-directed signals are the Linux attack.
func killHostThreads() error { return errors.New("tgkill is Linux's") }
