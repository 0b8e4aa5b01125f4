//go:build linux

package sandbox

import (
	"os"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
)

// Terminal ioctls the filter refuses: pushing bytes into a terminal's
// input (TIOCSTI, the keystroke injection of CVE-2017-5226) and the Linux
// console's selection paste (TIOCLINUX).
const (
	ioctlTIOCSTI   = 0x5412
	ioctlTIOCLINUX = 0x541C
)

// Socket arguments the filter looks at.
const (
	afNetlink   = 16
	ipprotoTCP  = 6
	sockNotTCP  = 0xE        // SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET each set one of these bits; SOCK_STREAM (1) none
	pidfdThread = 0x80       // PIDFD_THREAD (O_EXCL): pidfd_open for one thread
	msgFastOpen = 0x20000000 // MSG_FASTOPEN: a connect inside sendto
)

// filterOptions say which doors of a policy the seccomp filter closes.
type filterOptions struct {
	// startTID is the thread that starts the server: for the microseconds
	// before it ends, it shares the server's Landlock domain. 0 when the
	// helper confines the server (no thread of the host is confined).
	startTID int
	// noUnix refuses socket(AF_UNIX): the server connects to no UNIX
	// socket, pathname or abstract (socketpair stays: node, Python and
	// Chromium make their own pipes with it). Only the tests of the
	// filter alone use it: every start has the supervisor.
	noUnix bool
	// supervised sends every connect(2) to the host's supervisor, which
	// judges and performs it; datagram UNIX sockets, which reach a path
	// without a connect, are refused, and so is TCP Fast Open (a connect
	// inside sendto) under a restricted network.
	supervised bool
	// onlyTCP refuses every socket but AF_UNIX (when allowed),
	// AF_NETLINK and TCP over IPv4/IPv6 (protocol 0 or IPPROTO_TCP), which
	// Landlock governs: no UDP, MPTCP, SCTP, raw or packet socket, nor
	// any family nobody listed.
	onlyTCP bool
}

// serverFilter is the seccomp filter of a sandboxed server; every rule
// answers EPERM. It closes the doors Landlock leaves open:
//
//   - signals aimed at the host's threads (tkill; tgkill and
//     rt_tgsigqueueinfo to the host's pid; kill and rt_sigqueueinfo to
//     the starting thread's id; a pidfd for one thread), since Landlock's
//     signal scoping lets a server signal the thread that started it
//     while they share a domain;
//   - TIOCSTI and TIOCLINUX on any terminal, a second wall behind the
//     server's own session (it has no controlling terminal);
//   - io_uring, whose socket and connect operations do not pass through
//     this filter;
//   - the kernel's key store (keyctl, add_key, request_key): the user's
//     and session keyrings hold what other programs keep there
//     (Kerberos tickets, file system keys), and no rule of Landlock's
//     reaches them;
//   - socket(AF_UNIX) unless the policy grants UNIX sockets and
//     the kernel cannot grant them by path (see [filterOptions]);
//   - with a restricted network, every socket but TCP's.
//
// A seccomp rule sees the raw 64-bit register, while the kernel reads an
// int argument from its low 32 bits: a value with other high bits than a
// sign extension would slip past an equality test. Such values of every
// argument a rule compares are refused first.
func serverFilter(o filterOptions) seccomp.Filter {
	host := uint64(os.Getpid())
	tid := uint64(o.startTID)
	eq := func(arg uint32, v uint64) seccomp.Condition {
		return seccomp.Condition{Argument: arg, Operation: seccomp.Equal, Value: v}
	}
	var groups []seccomp.NameWithConditions
	add := func(name string, conds ...seccomp.Condition) {
		groups = append(groups, seccomp.NameWithConditions{Name: name, Conditions: conds})
	}
	for _, c := range []struct {
		name string
		arg  uint32
	}{{"kill", 0}, {"tgkill", 0}, {"rt_sigqueueinfo", 0}, {"rt_tgsigqueueinfo", 0}, {"ioctl", 1}, {"socket", 0}, {"socket", 1}, {"socket", 2}} {
		add(c.name, notInt(c.arg)...)
	}
	add("tgkill", eq(0, host))
	add("rt_tgsigqueueinfo", eq(0, host))
	if tid != 0 { // 0 would be kill(0, sig), its own process group
		add("kill", eq(0, tid))
		add("rt_sigqueueinfo", eq(0, tid))
	}
	add("pidfd_open", seccomp.Condition{Argument: 1, Operation: seccomp.BitsSet, Value: pidfdThread})
	add("ioctl", eq(1, ioctlTIOCSTI))
	add("ioctl", eq(1, ioctlTIOCLINUX))
	if o.noUnix {
		add("socket", eq(0, syscall.AF_UNIX))
	}
	if o.supervised {
		// SOCK_DGRAM (2) and SOCK_RAW (3, a datagram socket for AF_UNIX)
		// have bit 1 set; SOCK_STREAM (1) and SOCK_SEQPACKET (5) do not.
		add("socket", eq(0, syscall.AF_UNIX), seccomp.Condition{Argument: 1, Operation: seccomp.BitsSet, Value: 2})
	}
	if o.onlyTCP {
		add("sendto", seccomp.Condition{Argument: 3, Operation: seccomp.BitsSet, Value: msgFastOpen})
		add("sendmsg", seccomp.Condition{Argument: 2, Operation: seccomp.BitsSet, Value: msgFastOpen})
		add("sendmmsg", seccomp.Condition{Argument: 3, Operation: seccomp.BitsSet, Value: msgFastOpen})
	}
	if o.onlyTCP {
		families := []seccomp.Condition{
			{Argument: 0, Operation: seccomp.NotEqual, Value: syscall.AF_INET},
			{Argument: 0, Operation: seccomp.NotEqual, Value: syscall.AF_INET6},
			{Argument: 0, Operation: seccomp.NotEqual, Value: afNetlink},
		}
		if !o.noUnix {
			families = append(families, seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: syscall.AF_UNIX})
		}
		add("socket", families...)
		for _, family := range []uint64{syscall.AF_INET, syscall.AF_INET6} {
			add("socket", eq(0, family), seccomp.Condition{Argument: 1, Operation: seccomp.BitsSet, Value: sockNotTCP})
			add("socket", eq(0, family),
				seccomp.Condition{Argument: 2, Operation: seccomp.NotEqual, Value: 0},
				seccomp.Condition{Argument: 2, Operation: seccomp.NotEqual, Value: ipprotoTCP})
		}
	}
	f := seccomp.Filter{
		NoNewPrivs: true,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls: []seccomp.SyscallGroup{{
				Action:             seccomp.ActionErrno,
				Names:              []string{"tkill", "io_uring_setup", "keyctl", "add_key", "request_key"},
				NamesWithCondtions: groups,
			}},
		},
	}
	if o.supervised {
		// Errno answers take precedence over notifications: a refused
		// call never reaches the supervisor.
		f.Policy.Syscalls = append(f.Policy.Syscalls, seccomp.SyscallGroup{Action: seccomp.ActionUserNotify, Names: []string{"connect"}})
	}
	return f
}

// notInt matches an argument that is no int the kernel would read as
// the same number: high bits that are neither zero nor the sign
// extension of the low 32 (0xFFFFFFFF with the low word's top bit set).
func notInt(arg uint32) []seccomp.Condition {
	return []seccomp.Condition{
		{Argument: arg, Operation: seccomp.GreaterThan, Value: 0xFFFFFFFF},
		{Argument: arg, Operation: seccomp.LessThan, Value: 0xFFFFFFFF_80000000},
	}
}
