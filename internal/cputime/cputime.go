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
