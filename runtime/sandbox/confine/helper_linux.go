//go:build linux

package confine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Main is the helper's program: host-confine SERVER ARGV0 [ARG...].
// Started by the host in a user and mount namespace of the server's own,
// with CAP_SYS_ADMIN in it, it reads a [Plan] on [ControlFD], binds the
// plan's paths over themselves, restricts itself ([Restrict] with
// [RulesetFD]), answers, and execs SERVER with the rest of its arguments
// and the plan's environment. It never returns.
//
// "host-confine --check" only tells whether this machine lets the helper
// mount in such a namespace (exit 0), for the host's status, once its
// stdin ends (the host has mapped its ids).
func Main() {
	runtime.LockOSThread() // the confinement is per thread: the exec must come from this one
	if len(os.Args) == 2 && os.Args[1] == "--check" {
		os.Exit(check())
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "host-confine: started by mcp-host to confine a local MCP server; not a command to run by hand")
		os.Exit(2)
	}
	p, listener, err := prepare()
	if err != nil {
		reply(Reply{Error: err.Error()}, -1)
		os.Exit(126)
	}
	if err := reply(Reply{}, listener); err != nil {
		os.Exit(126)
	}
	if listener >= 0 {
		unix.Close(listener)
	}
	unix.CloseOnExec(ControlFD)
	err = unix.Exec(os.Args[1], os.Args[2:], p.Env)
	var errno unix.Errno
	if !errors.As(err, &errno) {
		errno = unix.EINVAL
	}
	reply(Reply{Errno: int(errno)}, -1)
	os.Exit(127)
}

// prepare reads the plan, makes its mounts and confines this thread.
func prepare() (*Plan, int, error) {
	buf := make([]byte, MaxPlan+1)
	n, _, _, _, err := unix.Recvmsg(ControlFD, buf, nil, 0)
	if err != nil {
		return nil, -1, fmt.Errorf("sandbox helper: reading the plan: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(buf[:n], &p); err != nil {
		return nil, -1, fmt.Errorf("sandbox helper: reading the plan: %w", err)
	}
	for _, path := range p.Pins {
		if err := bindOver(path, false); err != nil {
			return nil, -1, err
		}
	}
	for _, path := range p.ReadOnly {
		if err := bindOver(path, true); err != nil {
			return nil, -1, err
		}
	}
	listener, err := Restrict(RulesetFD, p.LandlockFlags, p.Filter, p.Notify)
	unix.Close(RulesetFD)
	return &p, listener, err
}

// bindOver binds path over itself, read-only when asked, with the new
// mount API: the path is opened once, without following a final
// symbolic link (a link is refused: the mount would land on whatever it
// names), and the copy of its tree is attached to that very directory
// entry. A mount point can be neither renamed nor removed (EBUSY), and a
// read-only one refuses every write below it (EROFS); the server, under
// Landlock, may not unmount it.
func bindOver(path string, readOnly bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox helper: opening %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("sandbox helper: %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return fmt.Errorf("sandbox helper: %s is a symbolic link: not bound", path)
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("sandbox helper: open_tree %s: %w", path, err)
	}
	defer unix.Close(tree)
	if readOnly {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return fmt.Errorf("sandbox helper: making %s read-only: %w", path, err)
		}
	}
	if err := unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("sandbox helper: mounting over %s: %w", path, err)
	}
	return nil
}

// check clones the root's mounts and drops them: the helper may mount.
// (A copy of a mount without its locked submounts is refused, hence the
// whole tree.)
func check() int {
	_, _ = io.Copy(io.Discard, os.Stdin)
	tree, err := unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		fmt.Fprintln(os.Stderr, "host-confine: cannot mount here:", err)
		return 1
	}
	unix.Close(tree)
	return 0
}

// reply sends r on the control socket, with listener as SCM_RIGHTS when
// it is one.
func reply(r Reply, listener int) error {
	b, _ := json.Marshal(r)
	var oob []byte
	if listener >= 0 {
		oob = unix.UnixRights(listener)
	}
	return unix.Sendmsg(ControlFD, b, oob, nil, 0)
}
