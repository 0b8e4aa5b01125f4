//go:build windows

package atomicfile

// syncDir does nothing: Windows cannot sync a directory, and NTFS journals
// the rename itself.
func syncDir(string) error { return nil }
