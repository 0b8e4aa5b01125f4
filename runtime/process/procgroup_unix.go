//go:build unix && !linux

package process

import (
	"os/exec"
	"syscall"
)

// procTree is one stdio server's process group. Outside Linux there is no
// /proc to find descendants that left the group, so the group is the tree.
type procTree struct{ leader int }

func newProcTree() *procTree { return &procTree{} }

// prepare runs the command in its own process group.
func (t *procTree) prepare(cmd *exec.Cmd) {
	// A session of its own (setsid): the server has no controlling
	// terminal, so it cannot open /dev/tty, write to the user's terminal
	// past the host's sanitizer, inject keystrokes (TIOCSTI) or take the
	// foreground. The session's process group is the tree's group: its
	// id is the leader's pid, as with setpgid.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// started records the leader, whose pid is the group's id.
func (t *procTree) started(cmd *exec.Cmd) error {
	t.leader = cmd.Process.Pid
	return nil
}

// scan has nothing to remember outside Linux.
func (t *procTree) scan(bool) {}

// signal sends SIGTERM (or SIGKILL) to the whole group.
func (t *procTree) signal(kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if t.leader > 0 { // -0 would be the host's own group
		_ = syscall.Kill(-t.leader, sig)
	}
}

// alive reports whether any member of the group is left.
func (t *procTree) alive() bool { return t.leader > 0 && syscall.Kill(-t.leader, 0) == nil }

// release has nothing to reap: orphans go to init.
func (t *procTree) release() {}
