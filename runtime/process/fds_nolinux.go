//go:build unix && !linux

package process

// closeRangeOnExec: close_range is Linux's.
func closeRangeOnExec() bool { return false }
