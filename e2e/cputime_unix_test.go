//go:build unix

package e2e_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the test process has used.
// Benchmarks report it per operation next to wall time: on a shared
// machine the ratio of CPU times is steadier than the ratio of wall times.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
