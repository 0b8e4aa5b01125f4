package sandbox

import (
	"fmt"
	"strings"
)

// Protection names, in the order the status lists them.
const (
	ProtectFiles    = "files"
	ProtectSockets  = "UNIX sockets"
	ProtectTerminal = "terminal"
	ProtectNetwork  = "network"
	ProtectSignals  = "signals"
	ProtectCode     = "files that run code later"
)

// osLayers is what this OS's sandbox enforces, for [Protections]: the
// kernel's Landlock ABI on Linux (0 elsewhere), and whether the OS has a
// sandbox at all.
type osLayers struct {
	name      string // "Landlock ABI 7", "Seatbelt"
	confines  bool
	abi       int
	seccomp   bool // socket families, TIOCSTI, signals by thread
	seatbelt  bool
	setsid    bool // a session of its own (every Unix)
	unixByABI bool // the kernel grants UNIX sockets by path
	// supervisor: the host judges and performs each connect (seccomp
	// user notification; see supervise_linux.go).
	supervisor bool
	// codeHelper: the files that run code later are bound read-only in a
	// mount namespace of the server's own (mountns_linux.go); codeReason
	// says why not when a server has some and they are not.
	codeHelper bool
	codeReason string
}

// Protections says, one line each, which protection this machine
// enforces for eff and which it does not: files, UNIX sockets, the
// terminal, the network, signals, and the files that run code later in
// its writable places. A layer that is off is never called enforced.
func Protections(eff *Effective) []string {
	l := layers()
	helper, reason := codeLayer(eff)
	l.codeHelper, l.codeReason = helper != "", reason
	return protections(eff, l)
}

func protections(eff *Effective, l osLayers) []string {
	if eff == nil {
		return nil
	}
	if eff.Off {
		return []string{"none: \"sandbox\": false (only the environment allowlist and its own session)"}
	}
	if !l.confines {
		out := []string{"none enforced: no sandbox on this OS (environment allowlist only)"}
		if l.setsid {
			out = append(out, ProtectTerminal+": enforced (a session of its own, no controlling terminal)")
		}
		return out
	}
	line := func(name string, enforced bool, how string) string {
		state := "not enforced"
		if enforced {
			state = "enforced"
		}
		return fmt.Sprintf("%s: %s (%s)", name, state, how)
	}
	out := []string{line(ProtectFiles, true, l.name+": reads and writes by grant")}
	switch {
	case l.supervisor:
		out = append(out, line(ProtectSockets, true, "the host's supervisor: only granted ones and its own; no datagram or abstract socket"))
	case l.unixByABI:
		out = append(out, line(ProtectSockets, true, l.name+": only the granted ones"))
	case len(eff.UnixSockets) > 0:
		out = append(out, line(ProtectSockets, false, "a grant lets it reach any socket it can name: "+l.name+" cannot grant one path"))
	case l.seccomp:
		out = append(out, line(ProtectSockets, true, "seccomp refuses socket(AF_UNIX)"))
	case l.seatbelt:
		out = append(out, line(ProtectSockets, true, "Seatbelt: only the granted ones"))
	}
	term := "a session of its own, no terminal device granted"
	if l.seccomp {
		term += ", TIOCSTI refused"
	}
	out = append(out, line(ProtectTerminal, true, term))
	switch eff.Network {
	case NetworkAll:
		out = append(out, ProtectNetwork+": open (\"network\": \"all\")")
	case NetworkNone:
		how := "no connection"
		if l.seccomp {
			how = "TCP by Landlock, every other protocol refused by seccomp"
		}
		if l.abi != 0 && l.abi < abiTCP {
			out = append(out, line(ProtectNetwork, false, fmt.Sprintf("TCP rules need Landlock ABI %d", abiTCP)))
		} else {
			out = append(out, line(ProtectNetwork, true, how))
		}
	case NetworkAllow:
		if l.supervisor {
			out = append(out, line(ProtectNetwork, true, "only the listed hosts, through the host's proxy, whose address the supervisor checks; no UDP"))
		} else {
			out = append(out, line(ProtectNetwork, true, "only the listed hosts, through the host's proxy; no UDP"),
				line("direct connections", false, "any host on the proxy's port is reachable: the kernel rule matches ports, not hosts"))
		}
	}
	if l.abi != 0 && l.abi < abiScope {
		out = append(out, line(ProtectSignals, false, fmt.Sprintf("scoping needs Landlock ABI %d", abiScope)))
	} else {
		out = append(out, line(ProtectSignals, true, "only its own processes"))
	}
	out = append(out, codeLines(eff, l)...)
	return out
}

// codeLines say which files that run code later, inside the server's
// writable places, are kept read-only and which are not.
func codeLines(eff *Effective, l osLayers) []string {
	partial := ""
	if eff.ExposedPartial {
		partial = fmt.Sprintf(" (looked at its writable places' first %d directories only)", exposedDirs)
	}
	if len(eff.Exposed) == 0 {
		return []string{ProtectCode + ": none in its writable places" + partial}
	}
	var bound, open []string
	for _, x := range eff.Exposed {
		if l.codeHelper && !isLink(x) {
			bound = append(bound, eff.shortHome(x))
		} else {
			open = append(open, eff.shortHome(x))
		}
	}
	var out []string
	if len(bound) > 0 {
		out = append(out, ProtectCode+": enforced (read-only in a mount namespace of its own: "+strings.Join(bound, ", ")+
			"; a new .git or .vscode it makes in a writable place is not prevented)"+partial)
	}
	if len(open) > 0 {
		why := "a writable directory's whole tree is writable"
		switch {
		case l.codeHelper:
			why = "a symbolic link cannot be bound read-only"
		case l.codeReason != "":
			why = l.codeReason
		}
		out = append(out, ProtectCode+": not protected inside its writable places: "+strings.Join(open, ", ")+
			" ("+why+"; give the server a narrower grant)")
	}
	return out
}
