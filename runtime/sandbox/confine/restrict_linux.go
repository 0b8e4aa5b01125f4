//go:build linux

package confine

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Restrict confines the calling (locked) thread, for the program it will
// exec: no new privileges, the Landlock ruleset fd, no capabilities (the
// ambient ones cleared, the bounding set emptied), and the seccomp
// program, whose listener it returns when notify asks for one (-1
// otherwise). Every one of these is per thread.
func Restrict(rulesetFD int, flags uint32, filter []Instruction, notify bool) (int, error) {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	// The system call itself: go-landlock's wrapper links libcap's psx,
	// which makes the helper a cgo binary that the dynamic loader (and
	// its LD_PRELOAD) starts.
	if _, _, e := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rulesetFD), uintptr(flags), 0); e != 0 {
		return -1, fmt.Errorf("sandbox: landlock_restrict_self: %w", e)
	}
	dropCapabilities()
	return InstallFilter(filter, notify)
}

// InstallFilter loads a seccomp program on the calling thread and returns
// its user-notification listener when notify asks for one (-1 otherwise).
func InstallFilter(filter []Instruction, notify bool) (int, error) {
	if len(filter) == 0 || len(filter) > 0xFFFF {
		return -1, fmt.Errorf("sandbox: a seccomp program of %d instructions", len(filter))
	}
	prog := make([]unix.SockFilter, len(filter))
	for i, in := range filter {
		prog[i] = unix.SockFilter{Code: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	flags := uintptr(0)
	if notify {
		flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	}
	fd, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return -1, fmt.Errorf("sandbox: loading the seccomp filter: %w", e)
	}
	if !notify {
		return -1, nil
	}
	return int(fd), nil
}

// dropCapabilities clears the ambient set (the helper raised
// CAP_SYS_ADMIN in it to mount, and ambient capabilities survive an exec)
// and empties the bounding set, so that the server, which a host run as
// root would start with every capability, gets none at exec: measured on
// Linux 6.18, a root server kept the capabilities to read
// /proc/<host pid>/environ (the host's API keys) past Landlock's ptrace
// rule, which holds for a server without them. Not root, there is
// nothing in the bounding set to drop and the kernel refuses (ignored).
func dropCapabilities() {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return
		}
	}
}
