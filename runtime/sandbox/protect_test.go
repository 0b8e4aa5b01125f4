package sandbox

import (
	"strings"
	"testing"
)

// Each protection is called enforced only where this machine's layers
// enforce it, and the ones that are not say so.
func TestProtections(t *testing.T) {
	abi7 := osLayers{name: "Landlock ABI 7", confines: true, abi: 7, seccomp: true, setsid: true}
	super := abi7
	super.supervisor = true
	abi9 := abi7
	abi9.name, abi9.abi, abi9.unixByABI = "Landlock ABI 9", 9, true
	has := func(lines []string, want string) bool {
		for _, l := range lines {
			if strings.HasPrefix(l, want) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name   string
		eff    Effective
		l      osLayers
		want   []string
		absent []string
	}{
		{"default", Effective{Network: NetworkAll}, abi7,
			[]string{"files: enforced", "UNIX sockets: enforced (seccomp", "terminal: enforced", "network: open", "signals: enforced", "files that run code later: none"}, nil},
		{"a socket granted on ABI 7", Effective{Network: NetworkAll, UnixSockets: []string{"/run/docker.sock"}}, abi7,
			[]string{"UNIX sockets: not enforced"}, []string{"UNIX sockets: enforced"}},
		{"a socket granted on ABI 9", Effective{Network: NetworkAll, UnixSockets: []string{"/run/docker.sock"}}, abi9,
			[]string{"UNIX sockets: enforced (Landlock ABI 9: only the granted ones)"}, nil},
		{"host list", Effective{Network: NetworkAllow, Allow: []string{"x:443"}}, abi7,
			[]string{"network: enforced", "direct connections: not enforced"}, nil},
		{"code places", Effective{Network: NetworkAll, Exposed: []string{"/repo/.git/hooks"}}, abi7,
			[]string{"files that run code later: not protected inside its writable places: /repo/.git/hooks"}, nil},
		{"old kernel", Effective{Network: NetworkNone}, osLayers{name: "Landlock ABI 3", confines: true, abi: 3, seccomp: true, setsid: true},
			[]string{"network: not enforced", "signals: not enforced"}, []string{"network: enforced", "signals: enforced"}},
		{"no sandbox", Effective{Network: NetworkAll}, osLayers{setsid: true},
			[]string{"none enforced", "terminal: enforced"}, []string{"files: enforced"}},
		{"off", Effective{Off: true, Network: NetworkAll}, abi7, []string{"none:"}, []string{"files: enforced"}},
		{"supervised", Effective{Network: NetworkAllow, Allow: []string{"x:443"}, UnixSockets: []string{"/run/docker.sock"}}, super,
			[]string{"UNIX sockets: enforced (the host's supervisor", "network: enforced (only the listed hosts, through the host's proxy, whose address"}, []string{"direct connections", "UNIX sockets: not"}},
	} {
		got := protections(&tc.eff, tc.l)
		for _, w := range tc.want {
			if !has(got, w) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, w, strings.Join(got, "\n"))
			}
		}
		for _, w := range tc.absent {
			if has(got, w) {
				t.Errorf("%s: says %q:\n%s", tc.name, w, strings.Join(got, "\n"))
			}
		}
	}
}
