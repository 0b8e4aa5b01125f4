//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcp-host/mcp-host/runtime/sandbox/confine"
)

// Files that run code later (.git/hooks, .vscode, ...) inside a server's
// writable places: Landlock cannot keep them read-only there (a right to
// write a directory reaches every directory below it, and a thread under
// Landlock may no longer mount), so such a server starts through the
// host-confine helper, in a user and mount namespace of its own, where
// they are bound read-only over themselves before the helper confines
// itself and execs the server (package confine). A server without them
// starts as before, from a confined thread of the host, at no extra cost.

// helperState is the helper's path when this machine can use it, or why
// not. Probed once per host process (one start of "host-confine --check"
// in a namespace, a few milliseconds), only when a server needs it.
var helperState = sync.OnceValues(probeHelper)

func probeHelper() (string, string) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Sprintf("the helper %s: %v", confine.Helper, err)
	}
	path := filepath.Join(filepath.Dir(exe), confine.Helper)
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Sprintf("the helper %s is not installed beside %s", confine.Helper, exe)
	}
	return checkHelper(path)
}

// checkHelper starts the helper at path with --check in a namespace of
// its own: user namespaces may be refused (a sysctl, AppArmor's
// restriction on Ubuntu 24.04).
func checkHelper(path string) (string, string) {
	cmd := exec.Command(path, "--check")
	cmd.Env = []string{} // the server's travels in the plan
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	inNamespace(cmd.SysProcAttr)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return "", fmt.Sprintf("no mount namespace for the helper (%v)", err)
	}
	err = mapIDs(cmd.Process.Pid)
	stdin.Close() // the helper waits for it, its ids mapped
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("%v %.200s", werr, out.String())
	}
	if err != nil {
		return "", fmt.Sprintf("no mount namespace for the helper (%v)", err)
	}
	return path, ""
}

// inNamespace makes the process a new user and mount namespace, with
// CAP_SYS_ADMIN in it to mount (the helper drops every capability before
// it execs the server). Its ids are mapped after its exec ([mapIDs]), not
// by Go's fork: the host is not dumpable, so the forked child's
// /proc/<pid>/uid_map belongs to root until the exec, and a host not run
// as root may not write it (measured: EACCES).
func inNamespace(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
}

// mapIDs maps the host's own user and group ids, one each, in the user
// namespace of the helper pid (which waits for it before it mounts).
func mapIDs(pid int) error {
	for _, w := range []struct{ file, line string }{
		{"setgroups", "deny"},
		{"uid_map", fmt.Sprintf("%d %d 1\n", os.Geteuid(), os.Geteuid())},
		{"gid_map", fmt.Sprintf("%d %d 1\n", os.Getegid(), os.Getegid())},
	} {
		path := fmt.Sprintf("/proc/%d/%s", pid, w.file)
		if err := os.WriteFile(path, []byte(w.line), 0); err != nil {
			return fmt.Errorf("sandbox: mapping the helper's ids: %w", err)
		}
	}
	return nil
}

// mountPlan is what the helper binds for eff: every exposed place
// read-only, and a repository's .git pinned first (bound over itself) so
// that it cannot be moved away and replaced. A repository without a
// hooks directory gets an empty one, made here as git itself would, so
// that there is a place to bind read-only (a server could otherwise make
// .git/hooks/pre-commit). A symbolic link cannot be bound over (it stays
// exposed; see [Protections]).
func mountPlan(eff *Effective) confine.Plan {
	var p confine.Plan
	pinned := map[string]bool{}
	for _, x := range eff.Exposed {
		if isLink(x) {
			continue
		}
		if git := gitDirOf(x); git != "" && !pinned[git] && !isLink(git) {
			pinned[git] = true
			p.Pins = append(p.Pins, git)
			hooks := filepath.Join(git, "hooks")
			if !slices.Contains(eff.Exposed, hooks) {
				if err := os.Mkdir(hooks, 0o755); err == nil || errors.Is(err, os.ErrExist) && !isLink(hooks) {
					p.ReadOnly = append(p.ReadOnly, hooks)
				}
			}
		}
		p.ReadOnly = append(p.ReadOnly, x)
	}
	return p
}

// gitDirOf is the .git directory that holds p, or "".
func gitDirOf(p string) string {
	for d := filepath.Dir(p); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == ".git" {
			return d
		}
	}
	return ""
}

// startInNamespace starts cmd through the helper: the helper reads the
// plan, mounts, confines itself with the ruleset fd and the filter, hands
// the supervisor's listener back and execs the server, whose pid is the
// helper's.
// opts are the filter's, as for a start from the host's thread (no
// thread of the host is confined here, so no startTID).
func startInNamespace(cmd *exec.Cmd, eff *Effective, helper string, ruleset int, flags uint32, opts filterOptions, plan confine.Plan) error {
	if len(cmd.ExtraFiles) > 0 {
		return errors.New("sandbox: a server started with extra descriptors cannot start through the helper")
	}
	prog, err := assembleFilter(serverFilter(opts))
	if err != nil {
		return err
	}
	plan.Filter, plan.Notify, plan.LandlockFlags = prog, true, flags
	plan.Env = cmd.Environ()
	msg, err := json.Marshal(plan)
	if err != nil || len(msg) > confine.MaxPlan {
		return fmt.Errorf("sandbox: the helper's plan (%d bytes, at most %d): %v", len(msg), confine.MaxPlan, err)
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: the helper's control socket: %w", err)
	}
	hostEnd, helperEnd := os.NewFile(uintptr(pair[0]), "control"), os.NewFile(uintptr(pair[1]), "control")
	defer hostEnd.Close()
	dup, err := unix.FcntlInt(uintptr(ruleset), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		helperEnd.Close()
		return fmt.Errorf("sandbox: the ruleset for the helper: %w", err)
	}
	rules := os.NewFile(uintptr(dup), "ruleset")
	server := cmd.Path
	cmd.Args = append([]string{helper, server}, cmd.Args...)
	cmd.Path = helper
	cmd.Env = []string{} // the server's travels in the plan
	cmd.ExtraFiles = []*os.File{helperEnd, rules}
	inNamespace(cmd.SysProcAttr)
	err = cmd.Start()
	helperEnd.Close()
	rules.Close()
	if err != nil {
		return fmt.Errorf("sandbox: starting the helper %s: %w", helper, err)
	}
	listener := -1
	if err = mapIDs(cmd.Process.Pid); err == nil {
		listener, err = handshake(hostEnd, msg, server)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	go (&supervisor{fd: listener, eff: eff, session: cmd.Process.Pid}).run()
	return nil
}

// handshake sends the plan and reads the helper's answers: the listener
// once it is confined, then the end of the socket when the exec closes
// it, or the exec's error.
func handshake(f *os.File, msg []byte, server string) (int, error) {
	c, err := net.FileConn(f)
	if err != nil {
		return -1, fmt.Errorf("sandbox: the helper's control socket: %w", err)
	}
	defer c.Close()
	uc := c.(*net.UnixConn)
	_ = uc.SetDeadline(time.Now().Add(helperTimeout))
	if _, _, err := uc.WriteMsgUnix(msg, nil, nil); err != nil {
		return -1, fmt.Errorf("sandbox: sending the helper its plan: %w", err)
	}
	var r confine.Reply
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil || n == 0 {
		return -1, fmt.Errorf("sandbox: the helper ended before confining the server: %v", err)
	}
	listener := -1
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
		if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 1 {
			listener = fds[0]
		}
	}
	if err := json.Unmarshal(buf[:n], &r); err != nil || r.Error != "" {
		closeFD(listener)
		return -1, fmt.Errorf("sandbox: the helper could not confine the server: %s", r.Error)
	}
	if listener < 0 {
		return -1, errors.New("sandbox: the helper sent no supervisor listener")
	}
	n, _, _, _, err = uc.ReadMsgUnix(buf, nil)
	if n > 0 && json.Unmarshal(buf[:n], &r) == nil && r.Errno != 0 {
		closeFD(listener)
		return -1, execError(server, syscall.Errno(r.Errno))
	}
	if err != nil && !isEOF(err) {
		closeFD(listener)
		return -1, fmt.Errorf("sandbox: waiting for the helper's exec: %w", err)
	}
	unix.CloseOnExec(listener)
	return listener, nil
}

// helperTimeout bounds the handshake: the helper mounts a few paths and
// execs; it only waits this long when the machine is stalled.
const helperTimeout = 30 * time.Second

func closeFD(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// codeLayer is the helper when eff has exposed places and this machine
// can protect them, or why it cannot.
func codeLayer(eff *Effective) (string, string) {
	if eff == nil || len(eff.Exposed) == 0 {
		return "", ""
	}
	return helperState()
}
