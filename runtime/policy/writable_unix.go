//go:build !windows

package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// writableNote warns when the current user can change the policy file or
// replace it (its directory is writable by them): such a file is not an
// organization's policy. It only warns, never fails closed (tests and
// fleets name their own files with MCP_HOST_MANAGED_POLICY). Only the
// mode bits and owners count, so root is warned about a file it owns
// (running an agent host as root is itself what an organization avoids).
func writableNote(file string) string {
	uid := os.Getuid()
	groups := map[int]bool{os.Getgid(): true}
	if gs, err := os.Getgroups(); err == nil {
		for _, g := range gs {
			groups[g] = true
		}
	}
	for _, p := range []string{file, filepath.Dir(file)} {
		if writableBy(p, uid, groups) {
			return fmt.Sprintf("managed policy %s is writable by you; an organization's policy should not be", file)
		}
	}
	return ""
}

// writableBy reports whether path's mode bits let uid (in groups) write it.
func writableBy(path string, uid int, groups map[int]bool) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	m := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	switch {
	case int(st.Uid) == uid:
		return m&0o200 != 0
	case groups[int(st.Gid)]:
		return m&0o020 != 0
	default:
		return m&0o002 != 0
	}
}
