//go:build !windows

package atomicfile

import "os"

// rename is os.Rename: rename(2) replaces the target atomically.
func rename(from, to string) error { return os.Rename(from, to) }
