//go:build linux

package ptytest

import (
	"os"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Open opens a pseudo-terminal pair, closed when the test ends: its
// controlling side and the terminal (/dev/pts/N) a program would have as
// its tty.
func Open(t testing.TB) (ptm, pts *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatalf("no pseudo-terminals: %v", err)
		}
		t.Skipf("SKIPPED: no pseudo-terminals: %v", err)
	}
	ptm = os.NewFile(uintptr(fd), "/dev/ptmx")
	t.Cleanup(func() { ptm.Close() })
	var unlock int32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close() })
	return ptm, pts
}
