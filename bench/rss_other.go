//go:build !linux && !darwin

package bench

import "os"

// peakRSS is 0 (unknown): this platform's usage report has no peak RSS
// the bench reads.
func peakRSS(*os.ProcessState) int64 { return 0 }
