//go:build linux

package main

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// dialOther opens an MPTCP connection ("mptcp") or sends a UDP datagram
// ("udp") to addr (host:port, IPv4).
func dialOther(kind, addr string) error {
	ap, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return err
	}
	typ, proto := unix.SOCK_STREAM, unix.IPPROTO_MPTCP
	if kind == "udp" {
		typ, proto = unix.SOCK_DGRAM, 0
	}
	fd, err := unix.Socket(unix.AF_INET, typ, proto)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	sa := &unix.SockaddrInet4{Port: ap.Port}
	copy(sa.Addr[:], ap.IP.To4())
	if kind == "udp" {
		return unix.Sendto(fd, []byte("x"), 0, sa)
	}
	return unix.Connect(fd, sa)
}

// errnoName is the errno of err by name ("EACCES"), or "none".
func errnoName(err error) string {
	var e syscall.Errno
	if !errors.As(err, &e) || unix.ErrnoName(e) == "" {
		return "none"
	}
	return unix.ErrnoName(e)
}
