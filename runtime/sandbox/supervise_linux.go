//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/mcp-host/mcp-host/runtime/sandbox/confine"
)

// The supervisor: every connect(2) of a confined server stops in the
// kernel and waits for the host, which judges it and, when it is let
// through, performs it itself on a copy of the server's socket (pidfd_getfd)
// or on a new socket it hands over in place of the server's
// (SECCOMP_IOCTL_NOTIF_ADDFD). Nothing is read twice from the server's
// memory and no decision is left to the kernel to redo, so swapping the
// address or the descriptor after the check changes nothing
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE, which would, is never used).
//
// UNIX sockets: a pathname socket is reached only when the policy grants
// its real path, or when the process listening on it is in the server's
// own session (Chromium's singleton socket in its profile); abstract
// addresses are refused (the host's connect would not be scoped by
// Landlock as the server's is). TCP and other families: performed as
// asked under "network": "all"; under a restricted network only the
// host's proxy on loopback, or without one a listed port, is reached, by
// address and port, which closes the direct connections Landlock's
// port-only rule let through.

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	ID    uint64
	PID   uint32
	Flags uint32
	Data  struct {
		NR   int32
		Arch uint32
		IP   uint64
		Args [6]uint64
	}
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// seccompNotifAddfd is struct seccomp_notif_addfd.
type seccompNotifAddfd struct {
	ID         uint64
	Flags      uint32
	SrcFD      uint32
	NewFD      uint32
	NewFDFlags uint32
}

// loadFilter loads f on the calling thread, with a notification listener
// when notify (the returned descriptor, close-on-exec), else -1.
func loadFilter(f seccomp.Filter, notify bool) (int, error) {
	prog, err := assembleFilter(f)
	if err != nil {
		return -1, err
	}
	return confine.InstallFilter(prog, notify)
}

// assembleFilter turns f into the seccomp program to load, behind a check
// that lets only the native system call ABI through.
func assembleFilter(f seccomp.Filter) ([]confine.Instruction, error) {
	insts, err := f.Policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("sandbox: assembling the seccomp filter: %w", err)
	}
	native, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("sandbox: the seccomp filter: %w", err)
	}
	// Only the native system call ABI: go-seccomp-bpf lets a call of
	// another ABI through whole (its numbers are not the ones its rules
	// name), and x86-64 kernels with IA32 emulation serve int $0x80, the
	// i386 ABI: every rule below would be a door left open (measured: an
	// MPTCP connection under "none", a connect to ssh-agent the supervisor
	// never saw).
	insts = append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.EPERM)},
	}, insts...)
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("sandbox: assembling the seccomp filter: %w", err)
	}
	prog := make([]confine.Instruction, len(raw))
	for i, r := range raw {
		prog[i] = confine.Instruction{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return prog, nil
}

// supervisor judges one server's connects.
type supervisor struct {
	fd      int // the notification listener
	eff     *Effective
	session int // the server's session id: its leader's pid
}

// run answers notifications until every process of the server has gone.
func (s *supervisor) run() {
	defer unix.Close(s.fd)
	for {
		pfd := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if pfd[0].Revents&unix.POLLIN == 0 {
			return // POLLHUP: no process uses the filter any more
		}
		var n seccompNotif
		if err := ioctlPtr(s.fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue
			}
			return
		}
		go s.answer(n)
	}
}

func ioctlPtr(fd int, req uint, p unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(p)); e != 0 {
		return e
	}
	return nil
}

// answer judges and performs one connect, then answers the server.
func (s *supervisor) answer(n seccompNotif) {
	ret, errno := s.connect(n)
	resp := seccompNotifResp{ID: n.ID, Val: ret}
	if errno != 0 {
		resp.Error = -int32(errno)
	}
	_ = ioctlPtr(s.fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
}

// connect returns connect(2)'s result for the server's call n.
func (s *supervisor) connect(n seccompNotif) (int64, syscall.Errno) {
	fd, addrPtr, addrLen := int(n.Data.Args[0]), uintptr(n.Data.Args[1]), int(n.Data.Args[2])
	if addrLen <= 0 || addrLen > unix.SizeofSockaddrAny {
		return -1, unix.EINVAL
	}
	tgid := threadGroup(int(n.PID))
	pidfd, err := unix.PidfdOpen(tgid, 0)
	if err != nil {
		return -1, unix.ESRCH
	}
	defer unix.Close(pidfd)
	sock, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err != nil {
		return -1, unix.EBADF
	}
	defer unix.Close(sock)
	addr := make([]byte, addrLen)
	local := []unix.Iovec{{Base: &addr[0], Len: uint64(addrLen)}}
	remote := []unix.RemoteIovec{{Base: addrPtr, Len: addrLen}}
	if got, err := unix.ProcessVMReadv(tgid, local, remote, 0); err != nil || got != addrLen {
		return -1, unix.EFAULT
	}
	// The notification is still the live call of that process (its pid
	// was not reused while we looked).
	id := n.ID
	if ioctlPtr(s.fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) != nil {
		return -1, unix.ESRCH
	}
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return -1, unix.ENOTSOCK
	}
	switch domain {
	case unix.AF_UNIX:
		return s.connectUnix(n, tgid, fd, sock, addr)
	case unix.AF_INET, unix.AF_INET6:
		if !s.netAllowed(addr) {
			return -1, unix.EACCES
		}
	}
	return rawConnect(sock, addr)
}

// rawConnect connects sock to the address bytes, as the server asked.
func rawConnect(sock int, addr []byte) (int64, syscall.Errno) {
	_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(sock), uintptr(unsafe.Pointer(&addr[0])), uintptr(len(addr)))
	if e != 0 {
		return -1, e
	}
	return 0, 0
}

// netAllowed judges an IPv4 or IPv6 address under the policy's network.
func (s *supervisor) netAllowed(addr []byte) bool {
	switch s.eff.Network {
	case NetworkAll:
		return true
	case NetworkNone:
		return false
	}
	ap, ok := inetAddr(addr)
	if !ok {
		return false
	}
	if s.eff.ProxyPort != 0 {
		// The proxy listens on 127.0.0.1 (package netproxy).
		return ap.Addr().Unmap() == netip.AddrFrom4([4]byte{127, 0, 0, 1}) && ap.Port() == s.eff.ProxyPort
	}
	for _, hp := range s.eff.Allow {
		// Without the proxy a list is held by port (docs/SANDBOX.md).
		if _, port, err := splitHostPort(hp); err == nil && port != 0 && port == ap.Port() {
			return true
		}
	}
	return false
}

// inetAddr parses a sockaddr_in or sockaddr_in6.
func inetAddr(b []byte) (netip.AddrPort, bool) {
	if len(b) < 8 {
		return netip.AddrPort{}, false
	}
	port := binary.BigEndian.Uint16(b[2:4])
	switch binary.NativeEndian.Uint16(b[0:2]) {
	case unix.AF_INET:
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), port), true
	case unix.AF_INET6:
		if len(b) >= 24 {
			return netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[8:24])), port), true
		}
	}
	return netip.AddrPort{}, false
}

// connectUnix reaches a pathname socket the policy grants, or one a
// process of the server's own session listens on, through a new socket
// of the same type that replaces the server's descriptor.
func (s *supervisor) connectUnix(n seccompNotif, tgid, fd, orig int, addr []byte) (int64, syscall.Errno) {
	path, ok := unixPath(addr)
	if !ok {
		return -1, unix.EPERM // abstract or unnamed
	}
	if !filepath.IsAbs(path) {
		cwd, err := os.Readlink("/proc/" + strconv.Itoa(tgid) + "/cwd")
		if err != nil {
			return -1, unix.EPERM
		}
		path = filepath.Join(cwd, path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return -1, unix.ENOENT
	}
	if len(real) >= len(unix.RawSockaddrUnix{}.Path) {
		return -1, unix.ENAMETOOLONG
	}
	typ, err := unix.GetsockoptInt(orig, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || typ == unix.SOCK_DGRAM {
		return -1, unix.EPERM
	}
	granted := slices.Contains(s.eff.UnixSockets, real)
	c, err := unix.Socket(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, unix.EMFILE
	}
	defer unix.Close(c)
	if err := unix.Connect(c, &unix.SockaddrUnix{Name: real}); err != nil {
		var e syscall.Errno
		if errors.As(err, &e) {
			return -1, e
		}
		return -1, unix.ECONNREFUSED
	}
	if !granted {
		cred, err := unix.GetsockoptUcred(c, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			return -1, unix.EPERM
		}
		if sid, err := unix.Getsid(int(cred.Pid)); err != nil || sid != s.session {
			return -1, unix.EPERM
		}
	}
	if fl, err := unix.FcntlInt(uintptr(orig), unix.F_GETFL, 0); err == nil && fl&unix.O_NONBLOCK != 0 {
		_ = unix.SetNonblock(c, true)
	}
	add := seccompNotifAddfd{ID: n.ID, Flags: unix.SECCOMP_ADDFD_FLAG_SETFD, SrcFD: uint32(c), NewFD: uint32(fd), NewFDFlags: fdFlags(tgid, fd)}
	if err := ioctlPtr(s.fd, unix.SECCOMP_IOCTL_NOTIF_ADDFD, unsafe.Pointer(&add)); err != nil {
		return -1, unix.EPERM
	}
	return 0, 0
}

// unixPath is a sockaddr_un's path; false for an abstract or unnamed one.
func unixPath(b []byte) (string, bool) {
	if len(b) <= 2 || b[2] == 0 {
		return "", false
	}
	p := b[2:]
	if i := slices.Index(p, 0); i >= 0 {
		p = p[:i]
	}
	return string(p), true
}

// threadGroup is the process (thread group) a thread belongs to.
func threadGroup(tid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return tid
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Tgid:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return tid
}

// fdFlags keeps the server's descriptor close-on-exec if it was.
func fdFlags(tgid, fd int) uint32 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", tgid, fd))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "flags:"); ok {
			if f, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil && f&unix.O_CLOEXEC != 0 {
				return unix.O_CLOEXEC
			}
		}
	}
	return 0
}
