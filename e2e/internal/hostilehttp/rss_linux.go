package hostilehttp

import (
	"os"
	"syscall"
)

// PeakRSS returns the peak resident set size of an exited process, in
// bytes, and whether the platform reports it.
func PeakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss << 10, true // Linux reports KiB
}
