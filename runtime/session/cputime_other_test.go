//go:build !unix

package session_test

import "time"

// processCPU is not measured here: benchmarks report no cpu-ns/op.
func processCPU() time.Duration { return 0 }
