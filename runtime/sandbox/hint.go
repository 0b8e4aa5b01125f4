package sandbox

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// deniedPath finds the path a program said it was refused, in the words
// of node ("EACCES: permission denied, open '/x'"), Python
// ("[Errno 13] Permission denied: '/x'"), Go ("open /x: permission
// denied") and the sandbox's own refused start. The expressions are
// compiled on first use, not at package initialisation, where they cost
// about 0.5 ms of every host start (GODEBUG=inittrace=1).
var deniedPath = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?:EACCES|EPERM): (?:permission denied|operation not permitted), \w+ '([^']+)'`),
		regexp.MustCompile(`(?:Permission denied|Operation not permitted): '([^']+)'`),
		regexp.MustCompile(`(?i)(/[^:\s'"]+): (?:permission denied|operation not permitted)`),
		regexp.MustCompile(`the sandbox denied starting (/\S+)`),
	}
})

// deniedNet finds a refused connection ("connect EACCES 127.0.0.1:5432",
// "dial tcp 10.0.0.1:443: connect: permission denied"), compiled on first
// use like deniedPath.
var deniedNet = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`connect (?:EACCES|EPERM) (\S+)|dial tcp (\S+): connect: (?:permission denied|operation not permitted)`)
})

// Hint explains a server that stopped under an active sandbox, from what
// it said (its error and stderr tail): the denied path or address with the
// grant that allows it, else a hint to loosen the policy. It is "" when the
// server was not sandboxed.
func Hint(said string, st Status) string {
	if st.State != StateActive {
		return ""
	}
	if h := Denied(said, st); h != "" {
		return h
	}
	summary := st.Summary
	if summary != "" {
		summary = " (" + strings.TrimSpace(summary) + ")"
	}
	return `the server ran in a sandbox` + summary + `; if it needs a path or the network the policy does not grant, add it with "sandbox": {"filesystem": {"read": [...], "write": [...]}, "network": ...}`
}

// Denied is [Hint] when what the server said names the path or address
// the sandbox refused (with the grant that allows it), else "": for a
// tool's failed call, where the generic hint would say nothing of it.
func Denied(said string, st Status) string {
	if st.State != StateActive {
		return ""
	}
	for _, re := range deniedPath() {
		if m := re.FindStringSubmatch(said); m != nil {
			return fmt.Sprintf(`the sandbox denied %s; if the server needs it, grant it with "sandbox": {"filesystem": {"read": [%q]}} (or "write")`, m[1], m[1])
		}
	}
	if m := deniedNet().FindStringSubmatch(said); m != nil {
		addr := m[1] + m[2]
		if strings.Contains(st.Summary, "network via proxy:") {
			// Only the proxy's port is open: a direct connection fails
			// even to a listed pair.
			return fmt.Sprintf(`the sandbox denied a direct connection to %s; the server reaches the network only through the host's proxy in HTTPS_PROXY/HTTP_PROXY, and only for the pairs its "sandbox": {"network": [...]} lists`, addr)
		}
		return fmt.Sprintf(`the sandbox denied a connection to %s; if the server needs it, grant it with "sandbox": {"network": [%q]}`, addr, addr)
	}
	return ""
}
