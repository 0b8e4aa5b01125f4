//go:build linux

package process

import "golang.org/x/sys/unix"

// closeRangeOnExec marks descriptors 3 and up close-on-exec in one call.
func closeRangeOnExec() bool {
	return unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil
}
