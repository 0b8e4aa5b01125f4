//go:build linux && amd64

package main

import (
	"fmt"
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func int80(nr, a1, a2, a3 uintptr) uintptr

// i386 numbers of the calls the probe makes.
const (
	i386Socket  = 359
	i386Connect = 362
	i386Getpid  = 20
)

// viaI386 tries an attack through the i386 ABI: "getpid" (that the ABI
// answers at all), "mptcp ADDR" (an MPTCP connection) or "unix PATH" (a
// connect to a UNIX socket). Pointers go in memory below 4 GiB, which the
// 32-bit registers can name.
func viaI386(what, target string) error {
	call := func(nr, a1, a2, a3 uintptr) (uintptr, error) {
		r := int80(nr, a1, a2, a3)
		if e := int32(r); e < 0 && e > -4096 {
			return 0, syscall.Errno(-e)
		}
		return r, nil
	}
	switch what {
	case "getpid":
		_, err := call(i386Getpid, 0, 0, 0)
		return err
	case "mptcp", "unix":
	default:
		return fmt.Errorf("unknown i386 attack %q", what)
	}
	low, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_32BIT)
	if err != nil {
		return fmt.Errorf("mmap below 4 GiB: %w", err)
	}
	defer unix.Munmap(low)
	var family, proto uintptr = unix.AF_UNIX, 0
	var n int
	if what == "mptcp" {
		ap, err := net.ResolveTCPAddr("tcp4", target)
		if err != nil {
			return err
		}
		family, proto = unix.AF_INET, unix.IPPROTO_MPTCP
		*(*uint16)(unsafe.Pointer(&low[0])) = unix.AF_INET
		low[2], low[3] = byte(ap.Port>>8), byte(ap.Port)
		copy(low[4:8], ap.IP.To4())
		n = 16
	} else {
		*(*uint16)(unsafe.Pointer(&low[0])) = unix.AF_UNIX
		n = 2 + copy(low[2:110], target)
	}
	fd, err := call(i386Socket, family, unix.SOCK_STREAM, proto)
	if err != nil {
		return err
	}
	defer unix.Close(int(fd))
	_, err = call(i386Connect, fd, uintptr(unsafe.Pointer(&low[0])), uintptr(n))
	return err
}
