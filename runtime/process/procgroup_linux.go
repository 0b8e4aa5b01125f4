//go:build linux

package process

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// treeEnv marks every process of one stdio server's tree: the server gets
// it with a value of its own, and its descendants inherit it, so that one
// that left the process group (setsid) and lost its parent can still be
// told apart from the host's other children.
const treeEnv = "MCP_HOST_STDIO_TREE"

// subreaper records whether the host is its descendants' child subreaper.
var subreaper struct {
	once sync.Once
	on   bool
}

// strayReapInterval is how often the host looks for zombie children nobody
// waits for.
const strayReapInterval = 10 * time.Second

// enableSubreaper makes the host the child subreaper of everything it
// starts, once, when the first stdio server starts: a process whose parent
// dies is reparented to the host rather than to init, so it can still be
// found and killed when its session closes. Adopted children that exit are
// reaped (see reapStrays).
func enableSubreaper() {
	subreaper.once.Do(func() {
		if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil {
			subreaper.on = true
			go reapStrays()
		}
	})
}

// procStat is what /proc/<pid>/stat says about a process.
type procStat struct {
	ppid, pgrp int
	state      byte
	start      uint64 // clock ticks after boot; tells a reused pid apart
}

// readStat reads one process's stat line.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseStat(b)
}

// parseStat parses a stat line; the command name may hold spaces and
// parentheses, so fields are counted after its last ')'.
func parseStat(b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{ppid: ppid, pgrp: pgrp, state: f[0][0], start: start}, true
}

// allStats reads the stat of every process.
func allStats() map[int]procStat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]procStat, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out[pid] = st
		}
	}
	return out
}

// procTree is one stdio server's process tree: the leader, its process
// group, the descendants found by their parent chains, and processes that
// carry the tree's mark in their environment (a setsid daemon whose parent
// exited, reparented to the host). Each member is remembered with its start
// time, so a reused pid is never signalled.
type procTree struct {
	leader int
	mark   []byte // "\x00MCP_HOST_STDIO_TREE=<token>\x00"
	env    string // the same without the NULs

	mu    sync.Mutex
	known map[int]uint64
}

func newProcTree() *procTree {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	env := treeEnv + "=" + hex.EncodeToString(b)
	return &procTree{env: env, mark: []byte("\x00" + env + "\x00"), known: map[int]uint64{}}
}

// prepare runs the command in its own process group, marked, with the
// host as subreaper.
func (t *procTree) prepare(cmd *exec.Cmd) {
	enableSubreaper()
	// A session of its own (setsid): the server has no controlling
	// terminal, so it cannot open /dev/tty, write to the user's terminal
	// past the host's sanitizer, inject keystrokes (TIOCSTI) or take the
	// foreground. The session's process group is the tree's group: its
	// id is the leader's pid, as with setpgid.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, t.env)
}

// started records the leader.
func (t *procTree) started(cmd *exec.Cmd) error {
	t.leader = cmd.Process.Pid
	if st, ok := readStat(t.leader); ok {
		t.mu.Lock()
		t.known[t.leader] = st.start
		t.mu.Unlock()
	}
	return nil
}

// marked reports whether the process carries the tree's mark. Only the
// host's own user's processes can be read; a zombie has no environment.
func (t *procTree) marked(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil || len(b) == 0 {
		return false
	}
	return bytes.Contains(append([]byte{0}, b...), t.mark)
}

// scan returns the tree's current members. withMarks also reads the
// environment of every other process, which costs more: it is done before
// each signal, not while polling.
func (t *procTree) scan(withMarks bool) map[int]procStat {
	stats := allStats()
	self := os.Getpid()
	members := map[int]procStat{}
	t.mu.Lock()
	defer t.mu.Unlock()
	for pid, start := range t.known {
		if st, ok := stats[pid]; ok && st.start == start {
			members[pid] = st
		}
	}
	for pid, st := range stats {
		if pid == self || pid == 1 {
			continue
		}
		if _, ok := members[pid]; ok {
			continue
		}
		if t.leader > 0 && st.pgrp == t.leader || withMarks && st.state != 'Z' && t.marked(pid) {
			members[pid] = st
		}
	}
	// Descendants of members, whatever their group or session.
	for grew := true; grew; {
		grew = false
		for pid, st := range stats {
			if _, ok := members[pid]; ok || pid == self {
				continue
			}
			if _, ok := members[st.ppid]; ok {
				members[pid] = st
				grew = true
			}
		}
	}
	t.known = make(map[int]uint64, len(members))
	for pid, st := range members {
		t.known[pid] = st.start
	}
	return members
}

// signal sends SIGTERM (or SIGKILL) to the group and to every member.
func (t *procTree) signal(kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	members := t.scan(true)
	if t.leader > 0 { // -0 would be the host's own group
		_ = syscall.Kill(-t.leader, sig)
	}
	for pid, st := range members {
		if st.state == 'Z' {
			continue
		}
		// Check the start time once more right before the signal.
		if now, ok := readStat(pid); ok && now.start == st.start {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// alive reports whether any member is still running (zombies are done).
func (t *procTree) alive() bool {
	for _, st := range t.scan(false) {
		if st.state != 'Z' {
			return true
		}
	}
	return false
}

// release reaps the members the host adopted (the leader is reaped by its
// exec.Cmd). A member still running (a SIGKILL not yet done on a loaded
// machine) is reaped as soon as it exits, by a goroutine that looks for
// up to lateReapFor; before, it waited for reapStrays' second look, ten
// seconds or more.
func (t *procTree) release() {
	if t.reapExited() {
		go func() {
			for deadline := time.Now().Add(lateReapFor); time.Now().Before(deadline); {
				time.Sleep(pollEvery)
				if !t.reapExited() {
					return
				}
			}
		}()
	}
}

// lateReapFor bounds how long release watches members that still run.
const lateReapFor = 30 * time.Second

// reapExited reaps the adopted members that are zombies, and reports
// whether any member still runs.
func (t *procTree) reapExited() (running bool) {
	self := os.Getpid()
	for pid, st := range t.scan(false) {
		switch {
		case st.state != 'Z':
			running = true
		case pid != t.leader && st.ppid == self:
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
	return running
}

// reapStrays reaps zombie children of the host that nobody waits for:
// processes reparented to the host (it is their subreaper) that exited
// outside any session's close, such as a browser's launcher. A child that
// has been a zombie for a whole interval is one no exec.Cmd will wait for:
// Go's Wait reaps its child as soon as it exits.
func reapStrays() {
	var seen map[int]uint64
	for {
		time.Sleep(strayReapInterval)
		seen = reapStraysOnce(seen)
	}
}

// reapStraysOnce reaps the zombie children that were already zombies in
// seen, and returns the ones it saw for the first time.
func reapStraysOnce(seen map[int]uint64) map[int]uint64 {
	self := os.Getpid()
	now := map[int]uint64{}
	for pid, st := range allStats() {
		if st.ppid != self || st.state != 'Z' {
			continue
		}
		if start, ok := seen[pid]; ok && start == st.start {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			continue
		}
		now[pid] = st.start
	}
	return now
}
