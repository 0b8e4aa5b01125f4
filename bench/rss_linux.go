package bench

import (
	"os"
	"syscall"
)

// peakRSS is the peak resident set of an exited child, in bytes (0 when
// unknown).
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024 // kilobytes on Linux
	}
	return 0
}
