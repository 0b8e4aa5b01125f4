//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// probeThreads tries the thread-directed signals the seccomp filter
// refuses (signal 0: nothing is delivered): "tkill-self" at its own
// thread (which Landlock alone allows: same domain), "tgkill-host [pid]"
// at every thread of its parent or pid (the host; "ok" if any is let
// through),
// "pidfd-thread" a pidfd for its own thread.
func probeThreads(what string, args []string) error {
	switch what {
	case "tkill-self":
		if _, _, e := unix.Syscall(unix.SYS_TKILL, uintptr(unix.Gettid()), 0, 0); e != 0 {
			return e
		}
		return nil
	case "tgkill-host":
		host := os.Getppid()
		if len(args) > 0 {
			host, _ = strconv.Atoi(args[0])
		}
		ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", host))
		if err != nil {
			return err
		}
		for _, e := range ents {
			tid, _ := strconv.Atoi(e.Name())
			if unix.Tgkill(host, tid, 0) == nil {
				return nil
			}
		}
		return fmt.Errorf("tgkill refused for every thread of %d", host)
	case "pidfd-thread":
		fd, err := unix.PidfdOpen(unix.Gettid(), pidfdThread)
		if err == nil {
			unix.Close(fd)
		}
		return err
	}
	return fmt.Errorf("unknown thread probe %s", what)
}
