//go:build !windows

package policy

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writableNote warns when the current user can change the policy file or
// replace it (its directory is writable by them): such a file is not an
// organization's policy. It only warns, never fails closed (tests and
// fleets name their own files with MCP_HOST_MANAGED_POLICY). The kernel
// answers (faccessat with the effective ids), so ACLs, read-only mounts
// and root's override count as they would for a write; mode bits alone
// said "not writable" of a file an ACL lets the user write.
func writableNote(file string) string {
	for _, p := range []string{file, filepath.Dir(file)} {
		if writable(p) {
			return fmt.Sprintf("managed policy %s is writable by you; an organization's policy should not be", file)
		}
	}
	return ""
}

// writable reports whether this process may write path.
func writable(path string) bool {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS) == nil
}
