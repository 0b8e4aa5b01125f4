//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// killHostThreads sends SIGTERM to each thread of the process that
// started this one (tgkill), aiming at the thread that started it, which
// shares its sandbox until it ends; nil if any signal went through.
func killHostThreads() error {
	host := os.Getppid()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", host))
	if err != nil {
		return err
	}
	var last error
	for _, e := range ents {
		tid, _ := strconv.Atoi(e.Name())
		if last = unix.Tgkill(host, tid, unix.SIGTERM); last == nil {
			return nil
		}
	}
	return fmt.Errorf("tgkill to the %d threads of %d: %w", len(ents), host, last)
}
