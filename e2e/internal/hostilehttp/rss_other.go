//go:build !linux

package hostilehttp

import "os"

// PeakRSS returns the peak resident set size of an exited process, in
// bytes, and whether the platform reports it (only Linux here).
func PeakRSS(*os.ProcessState) (int64, bool) { return 0, false }
