//go:build unix

package process

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeInheritedOnExec marks every descriptor above stderr close-on-exec
// before each server starts (one close_range call on Linux). Go opens its own descriptors
// close-on-exec, but those the host inherited from whoever started it (a
// UI's socket or log file, a terminal) are not, and would reach every
// server it starts: a server gets stdin, stdout, stderr and what the host
// made for it, nothing else.
func closeInheritedOnExec() {
	if closeRangeOnExec() {
		return
	}
	// Without close_range (macOS, BSDs, kernels before 5.11): each
	// open descriptor, as /dev/fd lists them.
	ents, err := os.ReadDir("/dev/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}
