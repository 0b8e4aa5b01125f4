package sandbox

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestPolicyUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Policy
	}{
		{`"default"`, Policy{Base: BaseDefault}},
		{`"strict"`, Policy{Base: BaseStrict}},
		{`false`, Policy{Off: true}},
		{`true`, Policy{}},
		{`{"base":"strict","filesystem":{"read":["~/data"],"write":["out"]},"network":["api.github.com:443"],"required":true}`,
			Policy{Base: BaseStrict, Read: []string{"~/data"}, Write: []string{"out"},
				Network: &Network{Mode: NetworkAllow, Allow: []string{"api.github.com:443"}}, Required: true}},
		{`{"network":"none"}`, Policy{Network: &Network{Mode: NetworkNone}}},
		// Any port of one host: the proxy enforces it.
		{`{"network":["api.example.com:*","*.corp.example:*"]}`, Policy{Network: &Network{Mode: NetworkAllow, Allow: []string{"api.example.com:*", "*.corp.example:*"}}}},
	} {
		var p Policy
		if err := json.Unmarshal([]byte(tc.in), &p); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if p.DigestInput() != tc.want.DigestInput() {
			t.Errorf("%s: got %s, want %s", tc.in, p.DigestInput(), tc.want.DigestInput())
		}
		// And back: what is written reads the same.
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var again Policy
		if err := json.Unmarshal(b, &again); err != nil || again.DigestInput() != p.DigestInput() {
			t.Errorf("%s: round trip %s: %v", tc.in, b, err)
		}
	}
}

func TestPolicyUnmarshalErrorsNameTheField(t *testing.T) {
	for in, want := range map[string]string{
		`"loose"`:                        `sandbox: want "default", "strict", false or an object, got "loose"`,
		`42`:                             `sandbox: want "default", "strict", false or an object, got 42`,
		`{"base":"open"}`:                `sandbox.base: want "default" or "strict", got "open"`,
		`{"network":"some"}`:             `sandbox.network: want "all", "none" or a list of "host:port", got "some"`,
		`{"network":["github.com"]}`:     `sandbox.network[0]: want "host:port", got "github.com"`,
		`{"network":["h:99999"]}`:        `sandbox.network[0]: bad port in "h:99999"`,
		`{"network":["h:*1"]}`:           `sandbox.network[0]: bad port in "h:*1"`,
		`{"network":["*"]}`:              `sandbox.network[0]: want "host:port", got "*"`,
		`{"filesystem":{"read":[""]}}`:   `sandbox.filesystem.read[0]: empty or invalid path ""`,
		`{"filesystem":{"exec":["/x"]}}`: `unknown field "exec"`,
		`{"nework":"none"}`:              `unknown field "nework"`,
	} {
		var p Policy
		err := json.Unmarshal([]byte(in), &p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", in, err, want)
		}
	}
}

func TestTightenProjectCannotLoosen(t *testing.T) {
	strict := Policy{Base: BaseStrict}
	global := Policy{Read: []string{"~/data"}, Write: []string{"~/out"}, Network: &Network{Mode: NetworkAllow, Allow: []string{"a:443", "b:443"}}}

	got, warn := Tighten(Policy{}, Policy{Off: true})
	if got.Off || len(warn) != 1 || !strings.Contains(warn[0], "only the global config") {
		t.Errorf("project false: %+v %v", got, warn)
	}
	if got, _ := Tighten(strict, Policy{}); got.BaseName() != BaseStrict {
		t.Errorf("project default over global strict: base %s", got.BaseName())
	}
	if got, _ := Tighten(Policy{}, strict); got.BaseName() != BaseStrict {
		t.Errorf("project strict over global default: base %s", got.BaseName())
	}
	got, warn = Tighten(global, Policy{Read: []string{"~/data/sub", "~/.ssh"}, Write: []string{"~/out", "/etc"},
		Network: &Network{Mode: NetworkAll}})
	if strings.Join(got.Read, ",") != "~/data/sub" || strings.Join(got.Write, ",") != "~/out" {
		t.Errorf("grants: read %v write %v", got.Read, got.Write)
	}
	if len(warn) != 2 {
		t.Errorf("warnings %v, want one per dropped grant", warn)
	}
	if got.Network == nil || got.Network.Mode != NetworkAllow || len(got.Network.Allow) != 2 {
		t.Errorf("network %+v: the project's \"all\" must not widen the global list", got.Network)
	}
	got, _ = Tighten(global, Policy{Network: &Network{Mode: NetworkAllow, Allow: []string{"b:443", "c:443"}}})
	if strings.Join(got.Network.Allow, ",") != "b:443" {
		t.Errorf("network lists: %+v, want their intersection", got.Network)
	}
	// A global "host:*" admits the project's ports of that host only.
	got, _ = Tighten(Policy{Network: &Network{Mode: NetworkAllow, Allow: []string{"B:*", "a:443"}}},
		Policy{Network: &Network{Mode: NetworkAllow, Allow: []string{"b:8443", "c:443", "a:*"}}})
	if strings.Join(got.Network.Allow, ",") != "b:8443,a:443" {
		t.Errorf("network lists with ports *: %+v, want b:8443,a:443", got.Network)
	}
	// Strict's "no network" holds against a project's "all".
	if got, _ := Tighten(strict, Policy{Network: &Network{Mode: NetworkAll}}); got.Network != nil || got.BaseName() != BaseStrict {
		t.Errorf("strict, project network all: %+v", got)
	}
	if got, _ := Tighten(Policy{Base: BaseStrict, Network: &Network{Mode: NetworkAllow, Allow: []string{"a:443"}}}, Policy{}); got.Network == nil || got.Network.Mode != NetworkAllow {
		t.Errorf("global strict with a list, project default: %+v", got.Network)
	}
	if got, _ := Tighten(Policy{}, Policy{Required: true}); !got.Required {
		t.Error("required from the project is kept")
	}
	// The global false lets the project choose (any sandbox is tighter).
	if got, _ := Tighten(Policy{Off: true}, strict); got.Off || got.BaseName() != BaseStrict {
		t.Errorf("global false, project strict: %+v", got)
	}
}

func TestDigestInputStable(t *testing.T) {
	a := Policy{Read: []string{"/b", "/a"}, Network: &Network{Mode: NetworkAllow, Allow: []string{"y:1", "x:1"}}}
	b := Policy{Read: []string{"/a", "/b"}, Network: &Network{Mode: NetworkAllow, Allow: []string{"x:1", "y:1"}}}
	if a.DigestInput() != b.DigestInput() {
		t.Errorf("%s != %s", a.DigestInput(), b.DigestInput())
	}
	for _, other := range []Policy{{}, {Base: BaseStrict}, {Off: true}, {Read: []string{"/a"}}, {Required: true}} {
		if other.DigestInput() == a.DigestInput() {
			t.Errorf("%+v has the same digest input as %+v", other, a)
		}
	}
}

func TestResolveAndSummary(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	ctx := Context{Home: home, Cwd: filepath.Join(home, "proj"), TempDir: filepath.FromSlash("/tmp/mcp-x"),
		HostPaths: []string{filepath.Join(home, ".config", "mcp-host")}}
	eff, err := Resolve(Policy{}, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".ssh", ".aws", filepath.Join(".config", "gcloud"), filepath.Join(".docker", "config.json"), filepath.Join(".config", "mcp-host")} {
		if !contains(eff.Deny, filepath.Join(home, want)) {
			t.Errorf("default denies %v, missing %s", eff.Deny, want)
		}
	}
	if !contains(eff.Protect, filepath.Join(home, ".bashrc")) || !contains(eff.Protect, filepath.Join(home, ".config", "autostart")) {
		t.Errorf("protect %v", eff.Protect)
	}
	sum := eff.Summary()
	shortTemp := filepath.FromSlash("/tmp/mcp-x")
	for _, want := range []string{"default: reads system, toolchains, own files;", "writes cwd ~/proj, temp " + shortTemp, "network all", "UNIX sockets none"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if strings.Contains(sum, "/dev/") {
		t.Errorf("summary %q lists devices", sum)
	}

	eff, err = Resolve(Policy{Base: BaseStrict, Read: []string{"~/data", "~/.ssh"}, Write: []string{"out"}}, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if eff.Network != NetworkNone || contains(eff.Write, ctx.Cwd) {
		t.Errorf("strict: %+v", eff)
	}
	if contains(eff.Deny, filepath.Join(home, ".ssh")) {
		t.Error("a grant naming ~/.ssh opens it")
	}
	if !contains(eff.Write, filepath.Join(ctx.Cwd, "out")) {
		t.Errorf("relative grant: %v", eff.Write)
	}
	sum = eff.Summary()
	if !strings.Contains(sum, "strict: reads system, toolchains, own files, ~/data, ~/.ssh; writes temp "+shortTemp+", ~/proj/out; network none; UNIX sockets none") {
		t.Errorf("strict summary %q", sum)
	}
	eff, _ = Resolve(Policy{Network: &Network{Mode: NetworkAllow, Allow: []string{"api.github.com:443"}}}, ctx)
	if !strings.HasSuffix(eff.Summary(), "network only api.github.com:443 (by port: any host on those ports); UNIX sockets none") {
		t.Errorf("summary %q", eff.Summary())
	}
	eff, _ = Resolve(Policy{Off: true}, ctx)
	if !strings.HasPrefix(eff.Summary(), "off") {
		t.Errorf("summary %q", eff.Summary())
	}
}

func TestSeatbeltProfile(t *testing.T) {
	home := "/Users/u"
	eff, err := Resolve(Policy{}, Context{Home: home, Cwd: "/Users/u/proj", TempDir: "/private/tmp/x"})
	if err != nil {
		t.Fatal(err)
	}
	slashed(eff)
	eff.Deny = append(eff.Deny, `/Users/u/we"ird\dir`)
	p := Profile(eff)
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		`(allow file-read* (subpath "/usr")`,
		`(deny network-outbound (remote unix-socket))`,
		`(subpath "/Users/u/.ssh")`,
		`(subpath "/Users/u/Library/Keychains")`,
		`(allow file-read* file-write* (subpath "/Users/u/proj") (subpath "/private/tmp/x") (subpath "/dev/null")`,
		`(subpath "/Users/u/proj")`,
		`(deny file-write* (subpath "/Users/u/.bashrc")`,
		`(subpath "/Users/u/we\"ird\\dir")`,
		"(allow network*)",
		"(allow signal (target same-sandbox))",
		`(global-name "com.apple.system.logger")`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %s:\n%s", want, p)
		}
	}
	// The secret denial comes after the reads (Seatbelt takes the last match).
	if strings.Index(p, `(allow file-read* (subpath "/usr")`) > strings.Index(p, `(deny file-read* file-write* (subpath "/Users/u/.ssh")`) {
		t.Errorf("deny before allow:\n%s", p)
	}
	eff, _ = Resolve(Policy{Base: BaseStrict, Network: &Network{Mode: NetworkAllow, Allow: []string{"api.github.com:443"}}}, Context{Home: home, Cwd: "/Users/u/proj"})
	p = Profile(slashed(eff))
	if strings.Contains(p, "(allow network*)") || !strings.Contains(p, `(allow network-outbound (remote tcp "*:443"))`) {
		t.Errorf("strict allowlist profile:\n%s", p)
	}
	if strings.Contains(p, `(subpath "/"))`) {
		t.Errorf("strict reads everything:\n%s", p)
	}
	// Without the proxy, "host:*" (any port) grants nothing rather than every port.
	anyPort, _ := Resolve(Policy{Base: BaseStrict, Network: &Network{Mode: NetworkAllow, Allow: []string{"api.github.com:*"}}}, Context{Home: home, Cwd: "/Users/u/proj"})
	if p := Profile(slashed(anyPort)); strings.Contains(p, "remote tcp") {
		t.Errorf("host:* without the proxy opens ports:\n%s", p)
	}
	// With the host's filtering proxy, only its port is reachable.
	eff.ProxyPort = 40123
	p = Profile(eff)
	if !strings.Contains(p, `(allow network-outbound (remote tcp "localhost:40123"))`) || strings.Contains(p, `"*:443"`) {
		t.Errorf("allowlist through the proxy:\n%s", p)
	}
	if !strings.HasSuffix(eff.Summary(), "network via proxy: api.github.com:443; UNIX sockets none") {
		t.Errorf("summary with the proxy %q", eff.Summary())
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// slashed writes eff's paths as macOS does, so that the profile's text is
// checked the same on every OS.
func slashed(eff *Effective) *Effective {
	for _, list := range [][]string{eff.Deny, eff.Protect, eff.Read, eff.Write} {
		for i := range list {
			list[i] = filepath.ToSlash(list[i])
		}
	}
	return eff
}

func TestHint(t *testing.T) {
	active := Status{State: StateActive, Summary: "strict: reads system"}
	for said, want := range map[string]string{
		"Error: EACCES: permission denied, open '/home/u/data/x.json'":        `the sandbox denied /home/u/data/x.json; if the server needs it, grant it with "sandbox": {"filesystem": {"read": ["/home/u/data/x.json"]}}`,
		"PermissionError: [Errno 13] Permission denied: '/srv/db'":            `the sandbox denied /srv/db;`,
		"open /home/u/.config/app/settings.json: permission denied":           `the sandbox denied /home/u/.config/app/settings.json;`,
		"cat: /home/u/notes.txt: Permission denied":                           `the sandbox denied /home/u/notes.txt;`,
		"sandbox: the sandbox denied starting /opt/tool/bin/srv (permission…": `the sandbox denied /opt/tool/bin/srv;`,
		"Error: connect EACCES 127.0.0.1:5432":                                `the sandbox denied a connection to 127.0.0.1:5432; if the server needs it, grant it with "sandbox": {"network": ["127.0.0.1:5432"]}`,
		"dial tcp 10.1.2.3:443: connect: permission denied":                   `a connection to 10.1.2.3:443;`,
		"Segmentation fault": `the server ran in a sandbox (strict: reads system); if it needs`,
	} {
		if got := Hint(said, active); !strings.Contains(got, want) {
			t.Errorf("%q: hint %q, want %q", said, got, want)
		}
	}
	proxied := Status{State: StateActive, Summary: "default: reads all; network via proxy: api.github.com:443"}
	if got := Hint("Error: connect EACCES 140.82.112.6:443", proxied); !strings.Contains(got, "only through the host's proxy in HTTPS_PROXY") {
		t.Errorf("a direct connection under the proxy: %q", got)
	}
	if got := Hint("EACCES: permission denied, open '/x'", Status{State: StateOff}); got != "" {
		t.Errorf("unsandboxed: %q", got)
	}
}
