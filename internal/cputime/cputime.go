// Package cputime reads the CPU time the running process has used, for
// benchmarks that report it per operation next to wall time: on a shared
// machine the ratio of CPU times is steadier than the ratio of wall times.
//
// It imports only the standard library.
package cputime

import "time"

// Process returns the CPU time (user and system) the process has used, or
// 0 where it is not measured (then benchmarks report no CPU time).
func Process() time.Duration { return process() }

// Children returns the CPU time (user and system) of the process's
// children that have ended and been waited for, and of their own such
// descendants, or 0 where it is not measured. Process plus the growth of
// Children over a window is what the process and the processes it ran
// cost, once those have ended.
func Children() time.Duration { return children() }
