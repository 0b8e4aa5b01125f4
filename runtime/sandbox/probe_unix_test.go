//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// probeMain is a stand-in server: it tries one thing and says "ok" or
// "denied: <error>".
func probeMain(args []string) int {
	if len(args) < 1 {
		fmt.Println("usage: probe read|write|connect|udp|kill|child ...")
		return 2
	}
	var err error
	switch args[0] {
	case "read":
		_, err = os.ReadFile(args[1])
	case "list":
		_, err = os.ReadDir(args[1])
	case "write":
		err = os.WriteFile(args[1], []byte("probe\n"), 0o600)
	case "rename":
		err = os.Rename(args[1], args[2])
	case "remove":
		err = os.Remove(args[1])
	case "mkdir":
		err = os.Mkdir(args[1], 0o700)
	case "connect":
		var c net.Conn
		c, err = net.Dial("tcp", args[1])
		if err == nil {
			c.Close()
		}
	case "udp":
		var fd int
		fd, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
		if err == nil {
			syscall.Close(fd)
		}
	case "parent-environ":
		_, err = os.ReadFile(fmt.Sprintf("/proc/%d/environ", os.Getppid()))
	case "host-mem":
		var f *os.File
		f, err = os.Open(fmt.Sprintf("/proc/%d/mem", os.Getppid()))
		if err == nil {
			f.Close()
		}
	case "kill":
		var pid int
		pid, err = strconv.Atoi(args[1])
		if err == nil {
			if pid == 0 {
				pid = os.Getppid()
			}
			err = syscall.Kill(pid, syscall.SIGCONT)
		}
	case "child":
		// The same probe again, as a child of this one.
		cmd := exec.Command(os.Args[0], args[1:]...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if e := cmd.Run(); e != nil {
			if ee, ok := e.(*exec.ExitError); ok {
				return ee.ExitCode()
			}
			fmt.Println("child failed:", e)
			return 3
		}
		return 0
	case "unix":
		// connect to a pathname UNIX socket
		var c net.Conn
		c, err = net.Dial("unix", args[1])
		if err == nil {
			c.Close()
		}
	case "unix-self":
		// listen on a socket in a directory of its own and connect to it
		// (Chromium's singleton)
		var ln net.Listener
		if ln, err = net.Listen("unix", filepath.Join(args[1], "self.sock")); err == nil {
			go func() {
				if c, err := ln.Accept(); err == nil {
					c.Close()
				}
			}()
			var c net.Conn
			if c, err = net.Dial("unix", filepath.Join(args[1], "self.sock")); err == nil {
				c.Close()
			}
			ln.Close()
		}
	case "unix-link":
		// a symlink in its own place to a socket outside, then connect to it
		link := filepath.Join(args[1], "link.sock")
		if err = os.Symlink(args[2], link); err == nil {
			var c net.Conn
			if c, err = net.Dial("unix", link); err == nil {
				c.Close()
			}
		}
	case "unix-abstract":
		var c net.Conn
		c, err = net.Dial("unix", "@"+args[1])
		if err == nil {
			c.Close()
		}
	case "umount", "tkill-self", "tgkill-host", "pidfd-thread", "tty", "tiocsti", "mptcp", "sctp", "raw", "tcp6-socket", "filter":
		err = probeLinux(args[0], args[1:])
	default:
		fmt.Println("unknown probe", args[0])
		return 2
	}
	if err != nil {
		// The errno, so that a test tells the sandbox's refusal
		// (EACCES, EPERM) from any other failure (ENOENT, ENXIO).
		var errno syscall.Errno
		name := "none"
		if errors.As(err, &errno) {
			name = unix.ErrnoName(errno)
		}
		fmt.Printf("denied: %v [errno=%s]\n", err, name)
		return 1
	}
	fmt.Println("ok")
	return 0
}
