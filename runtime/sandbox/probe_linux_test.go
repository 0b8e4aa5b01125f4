//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probeThreads tries the thread-directed signals the seccomp filter
// refuses (signal 0: nothing is delivered): "tkill-self" at its own
// thread (which Landlock alone allows: same domain), "tgkill-host [pid]"
// at every thread of its parent or pid (the host; "ok" if any is let
// through),
// "pidfd-thread" a pidfd for its own thread.
func probeLinux(what string, args []string) error {
	switch what {
	case "umount":
		// take a read-only bind away
		return unix.Unmount(args[0], unix.MNT_DETACH)
	case "tty":
		// open a terminal for writing (args[0], /dev/tty when none)
		path := "/dev/tty"
		if len(args) > 0 {
			path = args[0]
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		return err
	case "tiocsti":
		// push a byte into a terminal's input: args[0] is the terminal
		// (opened read-only), or "-" for stdin
		fd := 0
		if args[0] != "-" {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			fd = int(f.Fd())
		}
		b := byte('x')
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&b))); e != 0 {
			return e
		}
		return nil
	case "mptcp", "sctp", "raw", "tcp6-socket":
		family, typ, proto := unix.AF_INET, unix.SOCK_STREAM, map[string]int{"mptcp": unix.IPPROTO_MPTCP, "sctp": unix.IPPROTO_SCTP, "tcp6-socket": 0}[what]
		if what == "raw" {
			typ, proto = unix.SOCK_RAW, unix.IPPROTO_ICMP
		}
		if what == "tcp6-socket" {
			family = unix.AF_INET6
		}
		fd, err := unix.Socket(family, typ, proto)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if len(args) > 0 {
			// connect to a loopback port
			port, _ := strconv.Atoi(args[0])
			return unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
		}
		return nil
	case "filter":
		return probeFilter(args)
	case "tkill-self", "tgkill-host", "pidfd-thread":
		return probeThreads(what, args)
	}
	return fmt.Errorf("unknown Linux probe %s", what)
}

// probeThreads tries one thread-directed signal (see probeLinux).
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
	return fmt.Errorf("unknown Linux probe %s", what)
}

// probeFilter loads the server filter itself, with its own thread as the
// starting one, and tries what it must refuse: "kill-tid" signals its own
// thread with kill(2) (signal 0), "kill-tid-high" the same with high bits
// set above the thread id, "tiocsti-high" TIOCSTI on stdin with high bits
// above the request, "unix" a socket(AF_UNIX), "socketpair" a pair.
func probeFilter(args []string) error {
	runtime.LockOSThread()
	tid := unix.Gettid()
	if _, err := loadFilter(serverFilter(filterOptions{startTID: tid, noUnix: true}), false); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	call := func(nr, a0, a1, a2 uintptr, more ...uintptr) error {
		a3 := uintptr(0)
		if len(more) > 0 {
			a3 = more[0]
		}
		if _, _, e := unix.RawSyscall6(nr, a0, a1, a2, a3, 0, 0); e != 0 {
			return e
		}
		return nil
	}
	switch args[0] {
	case "kill-tid":
		return call(unix.SYS_KILL, uintptr(tid), 0, 0)
	case "kill-tid-high":
		return call(unix.SYS_KILL, uintptr(tid)|1<<32, 0, 0)
	case "tiocsti":
		b := byte('x')
		return call(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&b)))
	case "tiocsti-high":
		b := byte('x')
		return call(unix.SYS_IOCTL, 0, unix.TIOCSTI|1<<32, uintptr(unsafe.Pointer(&b)))
	case "unix":
		return call(unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM, 0)
	case "unix-high":
		return call(unix.SYS_SOCKET, unix.AF_UNIX|1<<32, unix.SOCK_STREAM, 0)
	case "socketpair":
		var fds [2]int32
		return call(unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM, 0, uintptr(unsafe.Pointer(&fds)))
	case "keyctl":
		// KEYCTL_GET_KEYRING_ID of the user's keyring (KEY_SPEC_USER_KEYRING)
		return call(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, uintptr(0xFFFFFFFC), 0)
	case "io_uring":
		var params [120]byte
		return call(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
	}
	return fmt.Errorf("unknown filter probe %s", args[0])
}
