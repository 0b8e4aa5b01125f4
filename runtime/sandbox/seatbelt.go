package sandbox

import (
	"fmt"
	"strings"
)

// Profile is eff as a macOS Seatbelt profile (SBPL) for sandbox-exec -p.
// Seatbelt takes the last rule that matches, so each deny follows the
// allow it narrows. It is built on every OS so that its text is tested
// everywhere.
func Profile(eff *Effective) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-exec)\n(allow process-fork)\n")
	b.WriteString("(allow signal (target same-sandbox))\n(allow process-info* (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n(allow ipc-posix-shm)\n")
	// Mach services by name: a bare (allow mach-lookup) reaches
	// LaunchServices, which opens any application (open -a Terminal)
	// outside the sandbox.
	b.WriteString("(allow mach-lookup")
	for _, name := range machServices {
		b.WriteString(" (global-name " + quoteSBPL(name) + ")")
	}
	b.WriteString(")\n")
	b.WriteString("(allow file-read-metadata)\n")
	writeRule(&b, "allow file-read*", eff.Read)
	writeRule(&b, "allow file-read* file-write*", eff.Write)
	writeRule(&b, "deny file-read* file-write*", eff.Deny)
	writeRule(&b, "deny file-write*", eff.Protect)
	// A grant inside a secret place opens what it names.
	protected := append(append([]string{}, eff.Deny...), eff.Protect...)
	writeRule(&b, "allow file-read*", insideAny(eff.Read, eff.Deny))
	writeRule(&b, "allow file-read* file-write*", insideAny(eff.Write, protected))
	switch eff.Network {
	case NetworkAll:
		b.WriteString("(allow network*)\n")
	case NetworkAllow:
		var ports []string
		if eff.ProxyPort != 0 {
			// Only the host's filtering proxy, which matches the hosts.
			ports = append(ports, fmt.Sprintf("(remote tcp %s)", quoteSBPL(fmt.Sprintf("localhost:%d", eff.ProxyPort))))
		} else {
			for _, hp := range eff.Allow {
				if _, port, err := splitHostPort(hp); err == nil && port != 0 {
					ports = append(ports, fmt.Sprintf("(remote tcp %s)", quoteSBPL(fmt.Sprintf("*:%d", port))))
				}
			}
		}
		if len(ports) > 0 {
			b.WriteString("(allow network-outbound " + strings.Join(ports, " ") + ")\n")
		}
	}
	// UNIX sockets: only the granted ones, under every network setting.
	if eff.Network == NetworkAll {
		b.WriteString("(deny network-outbound (remote unix-socket))\n")
	}
	for _, u := range eff.UnixSockets {
		b.WriteString("(allow network-outbound (remote unix-socket (path-literal " + quoteSBPL(u) + ")))\n")
	}
	return b.String()
}

// machServices are the Mach services a confined server may look up: the
// system logger, directory and name lookups, notifications, configd,
// certificate trust and the font server; not LaunchServices, the
// pasteboard or any agent that acts for the user.
var machServices = []string{
	"com.apple.system.logger", "com.apple.system.notification_center",
	"com.apple.system.opendirectoryd.libinfo", "com.apple.system.opendirectoryd.membership",
	"com.apple.system.DirectoryService.libinfo_v1", "com.apple.SystemConfiguration.configd",
	"com.apple.SystemConfiguration.DNSConfiguration", "com.apple.trustd", "com.apple.trustd.agent",
	"com.apple.logd", "com.apple.diagnosticd", "com.apple.fonts", "com.apple.FontObjectsServer",
	"com.apple.cfprefsd.daemon", "com.apple.cfprefsd.agent", "com.apple.securityd.xpc",
	"com.apple.coreservices.quarantine-resolver",
}

// writeRule writes one (action (subpath ...) ...) rule, nothing for no paths.
func writeRule(b *strings.Builder, action string, paths []string) {
	if len(paths) == 0 {
		return
	}
	b.WriteString("(" + action)
	for _, p := range paths {
		b.WriteString(" (subpath " + quoteSBPL(p) + ")")
	}
	b.WriteString(")\n")
}

// quoteSBPL quotes s as an SBPL string literal.
func quoteSBPL(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// insideAny returns the paths that lie strictly inside one of places.
func insideAny(paths, places []string) []string {
	var out []string
	for _, p := range paths {
		for _, d := range places {
			if p != d && within(p, d) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
