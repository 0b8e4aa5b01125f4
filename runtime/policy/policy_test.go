package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/internal/statefile"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// parse parses a policy that must be valid.
func parse(t *testing.T, text string) *Policy {
	t.Helper()
	p := Parse("/etc/mcp-host/managed.json", []byte(text))
	if p.Err != nil {
		t.Fatalf("policy %s: %v", text, p.Err)
	}
	return p
}

func httpEntry(id, url string) config.ServerEntry {
	return config.ServerEntry{ID: id, Config: config.ServerConfig{URL: url}, Source: config.SourceGlobal, DefinedIn: config.SourceGlobal, Path: "/u/config.json", DefinedPath: "/u/config.json"}
}

func stdioEntry(id string, command ...string) config.ServerEntry {
	return config.ServerEntry{ID: id, Config: config.ServerConfig{Command: command[0], Args: command[1:]}, Source: config.SourceGlobal, DefinedIn: config.SourceGlobal, Path: "/u/config.json", DefinedPath: "/u/config.json"}
}

// judge applies p to the entries and returns them by id.
func judge(p *Policy, lookup func(string) (string, bool), es ...config.ServerEntry) map[string]config.ServerEntry {
	eff := &config.Effective{Servers: es}
	p.Apply(eff, lookup)
	out := map[string]config.ServerEntry{}
	for _, e := range eff.Servers {
		out[e.ID] = e
	}
	return out
}

func noEnv(string) (string, bool) { return "", false }

func TestURLWildcardBlocksExactlyWhatItSays(t *testing.T) {
	p := parse(t, `{"deny": [{"url": "http://127.0.0.1:*/blocked*"}]}`)
	for url, blocked := range map[string]bool{
		"http://127.0.0.1:4100/blocked":        true,
		"http://127.0.0.1:4100/blocked/mcp":    true,
		"http://127.0.0.1/blockedness":         true,
		"http://127.0.0.1:4100/x/../blocked":   true, // dot segments
		"http://127.0.0.1:4100/%62locked":      true, // percent-encoded
		"HTTP://127.0.0.1:4100/blocked":        true,
		"http://127.0.0.1:4100/mcp":            false,
		"http://127.0.0.1:4100/Blocked":        false,
		"http://127.0.0.1:4100/mcp/blocked":    false,
		"https://127.0.0.1:4100/blocked":       false, // scheme
		"http://localhost:4100/blocked":        false, // host
		"http://127.0.0.2:4100/blocked":        false,
		"http://user@127.0.0.1:4100/blocked/x": true,
	} {
		e := judge(p, noEnv, httpEntry("s", url))["s"]
		if got := e.Blocked != nil; got != blocked {
			t.Errorf("%s: blocked %v, want %v (%v)", url, got, blocked, e.Blocked)
		}
		if blocked && e.Blocked != nil && e.Blocked.Rule != `deny[0] {"url":"http://127.0.0.1:*/blocked*"}` {
			t.Errorf("%s: rule %q", url, e.Blocked.Rule)
		}
	}
}

func TestURLHostLabelsPortsAndPaths(t *testing.T) {
	p := parse(t, `{"allow": [{"url": "https://*.corp.example/mcp*"}, {"url": "https://mcp-*.example.com:8443"}, {"url": "http://[::1]:*/exact"}]}`)
	for url, allowed := range map[string]bool{
		"https://a.corp.example/mcp":          true,
		"https://a.corp.example:443/mcp/x":    true,
		"https://A.Corp.Example./mcp":         true,
		"https://a.b.corp.example/mcp":        false, // '*' stays within a label
		"https://corp.example/mcp":            false,
		"https://a.corp.example:8443/mcp":     false, // default port only
		"http://a.corp.example/mcp":           false,
		"https://a.corp.example/other":        false,
		"https://a.corp.example/mcp/../admin": false, // every form must match an allow
		"https://mcp-x.example.com:8443/any":  true,
		"https://mcp-x.example.com/any":       false,
		"https://mcpx.example.com:8443/":      false,
		"http://[::1]:9/exact":                true,
		"http://[::1]:9/exact/more":           false,
	} {
		e := judge(p, noEnv, httpEntry("s", url))["s"]
		if got := e.Blocked == nil; got != allowed {
			t.Errorf("%s: allowed %v, want %v (%v)", url, got, allowed, e.Blocked)
		}
	}
	// A Unicode host cannot slip past URL rules in its non-ASCII form.
	if e := judge(parse(t, `{"deny": [{"url": "https://xn--bcher-kva.example"}]}`), noEnv, httpEntry("s", "https://bücher.example/mcp"))["s"]; e.Blocked == nil {
		t.Error("a Unicode host passed a deny list written in ASCII")
	}
}

func TestCommandWithStarArgument(t *testing.T) {
	p := parse(t, `{"deny": [{"command": ["npx", "-y", "*"]}]}`)
	for line, blocked := range map[string]bool{
		"npx -y @modelcontextprotocol/server-everything": true,
		"/usr/local/bin/npx -y anything":                 true, // a path does not slip past a deny
		`C:\node\npx.cmd -y anything`:                    true,
		"npx -y":                                         false, // '*' is exactly one argument
		"npx -y a b":                                     false,
		"npx --yes a":                                    false,
		"node -y a":                                      false,
	} {
		e := judge(p, noEnv, stdioEntry("s", strings.Fields(line)...))["s"]
		if got := e.Blocked != nil; got != blocked {
			t.Errorf("%s: blocked %v, want %v", line, got, blocked)
		}
	}
	// Allow rules take the executable as written.
	allow := parse(t, `{"allow": [{"command": ["npx", "-y", "@corp/server"]}]}`)
	for line, allowed := range map[string]bool{
		"npx -y @corp/server":           true,
		"/tmp/evil/npx -y @corp/server": false,
		"npx -y @corp/server --extra":   false,
		"npx -y @corp/other":            false,
	} {
		e := judge(allow, noEnv, stdioEntry("s", strings.Fields(line)...))["s"]
		if got := e.Blocked == nil; got != allowed {
			t.Errorf("allow %s: allowed %v, want %v", line, got, allowed)
		}
	}
	// A URL rule says nothing about commands, and the reverse.
	if e := judge(parse(t, `{"allow": [{"command": ["npx"]}]}`), noEnv, httpEntry("s", "https://x.example/"))["s"]; e.Blocked == nil || e.Blocked.Rule != "allow" {
		t.Errorf("an http server passed a command-only allow list: %v", e.Blocked)
	}
}

func TestDenyWinsOverAllow(t *testing.T) {
	p := parse(t, `{"allow": [{"url": "http://127.0.0.1:*"}], "deny": [{"url": "http://127.0.0.1:*/blocked*"}]}`)
	got := judge(p, noEnv, httpEntry("ok", "http://127.0.0.1:4100/mcp"), httpEntry("no", "http://127.0.0.1:4100/blocked"), httpEntry("other", "http://10.0.0.1/mcp"))
	if got["ok"].Blocked != nil {
		t.Errorf("ok: %v", got["ok"].Blocked)
	}
	if b := got["no"].Blocked; b == nil || !strings.HasPrefix(b.Rule, "deny[0]") {
		t.Errorf("no: %v, want deny[0]", b)
	}
	if b := got["other"].Blocked; b == nil || b.Rule != "allow" {
		t.Errorf("other: %v, want allow", b)
	}
}

func TestVariableCannotHideADeniedURL(t *testing.T) {
	p := parse(t, `{"deny": [{"url": "http://127.0.0.1:*/blocked*"}]}`)
	env := func(k string) (string, bool) {
		v, ok := map[string]string{"U": "http://127.0.0.1:4100/blocked", "PORT": "4100"}[k]
		return v, ok
	}
	got := judge(p, env, httpEntry("a", "${U}"), httpEntry("b", "http://127.0.0.1:${PORT}/blocked"))
	for _, id := range []string{"a", "b"} {
		if b := got[id].Blocked; b == nil || !strings.Contains(b.Reason, "${") || strings.Contains(b.Error(), "4100") {
			t.Errorf("%s: a ${VAR} hid a denied URL at load, or the reason shows its value: %v", id, b)
		}
	}
	// At connect time the runtime checks what it will really reach: a
	// variable unset at load and set later is caught there.
	e := judge(p, noEnv, httpEntry("c", "${LATER}"))["c"]
	if e.Blocked != nil {
		t.Fatalf("blocked before anything is known: %v", e.Blocked)
	}
	x := e.Config
	x.URL = "http://127.0.0.1:9/blocked/x"
	if b := e.Check(&x); b == nil || !strings.HasPrefix(b.Rule, "deny[0]") {
		t.Errorf("connect-time check: %v", b)
	}
	x.URL = "http://127.0.0.1:9/fine"
	if b := e.Check(&x); b != nil {
		t.Errorf("connect-time check blocked a fine URL: %v", b)
	}
}

func TestUserServers(t *testing.T) {
	forced := `"servers": {"corp": {"url": "https://mcp.corp.example/mcp"}}`
	for _, mode := range []string{"none", "registry_only"} {
		p := parse(t, `{"user_servers": "`+mode+`", `+forced+`}`)
		got := judge(p, noEnv, httpEntry("mine", "https://x.example/mcp"))
		if b := got["mine"].Blocked; b == nil || b.Rule != `"user_servers": "`+mode+`"` {
			t.Errorf("%s: user server: %v", mode, b)
		}
		if c, ok := got["corp"]; !ok || c.Blocked != nil || !c.Forced() {
			t.Errorf("%s: forced server %+v", mode, c)
		}
	}
	invalid := httpEntry("bad", "not a url")
	invalid.Err = errors.New("field \"url\": must be an absolute http(s) URL")
	if b := judge(parse(t, `{"user_servers": "none"}`), noEnv, invalid)["bad"].Blocked; b == nil || b.Rule != `"user_servers": "none"` {
		t.Errorf("an invalid user server under none: %v", b)
	}
	if b := judge(parse(t, `{"user_servers": "allow"}`), noEnv, httpEntry("mine", "https://x.example/"))["mine"].Blocked; b != nil {
		t.Errorf("allow: %v", b)
	}
}

func TestForcedServersCannotBeLoosened(t *testing.T) {
	p := parse(t, `{"deny": [{"url": "https://*"}], "servers": {"corp": {"url": "https://mcp.corp.example/mcp"}}}`)
	off := false
	mine := httpEntry("corp", "https://evil.example/mcp")
	mine.Config.Enabled = &off
	got := judge(p, noEnv, mine)["corp"]
	if got.Config.URL != "https://mcp.corp.example/mcp" || !got.Config.IsEnabled() || got.Source != config.SourceManaged || got.Path != p.File {
		t.Errorf("the user's entry of the same id won: %+v", got)
	}
	if got.Blocked != nil {
		t.Errorf("a forced server was blocked by the deny list: %v", got.Blocked)
	}
	if len(got.Warnings()) == 0 || !strings.Contains(got.Warnings()[0], "/u/config.json is ignored") {
		t.Errorf("warnings %q", got.Warnings())
	}
	if err := p.ForbidsRemoval("corp"); err == nil || !strings.Contains(err.Error(), p.File) {
		t.Errorf("ForbidsRemoval(corp) = %v", err)
	}
	if err := p.ForbidsRemoval("mine"); err != nil {
		t.Errorf("ForbidsRemoval(mine) = %v", err)
	}
}

func TestProjectServersOff(t *testing.T) {
	p := parse(t, `{"project_servers": false}`)
	proj := httpEntry("proj", "https://x.example/")
	proj.Source, proj.DefinedIn, proj.DefinedPath = config.SourceProject, config.SourceProject, "/repo/.mcp-host/config.json"
	// A project file that only turns a global server on is no project
	// definition.
	override := httpEntry("glob", "https://y.example/")
	override.Source = config.SourceProject
	got := judge(p, noEnv, proj, override)
	if b := got["proj"].Blocked; b == nil || b.Rule != `"project_servers": false` {
		t.Errorf("project server: %v", b)
	}
	if b := got["glob"].Blocked; b != nil {
		t.Errorf("global server enabled by a project: %v", b)
	}
}

func TestTrustOff(t *testing.T) {
	e := httpEntry("s", "https://x.example/")
	e.Config.Trust = true
	if !e.Trusted() {
		t.Fatal("setup: a global trust should count")
	}
	got := judge(parse(t, `{"trust": false}`), noEnv, e)["s"]
	if got.Trusted() {
		t.Error(`"trust": false in the policy left the server trusted`)
	}
	if w := got.Warnings(); len(w) != 1 || !strings.Contains(w[0], `"trust": false`) {
		t.Errorf("warnings %q", w)
	}
	if same := judge(parse(t, `{}`), noEnv, e)["s"]; !same.Trusted() {
		t.Error("a policy without trust dropped trust")
	}
}

// TestAutoAllow: "auto_allow": false in the policy drops every server's
// auto_allow with a warning; a server the policy provides may set it.
func TestAutoAllow(t *testing.T) {
	e := httpEntry("s", "https://x.example/")
	e.Config.AutoAllow = config.AutoAllowReadOnly
	if !e.AutoAllowReadOnly() {
		t.Fatal("setup: a global auto_allow should count")
	}
	got := judge(parse(t, `{"auto_allow": false}`), noEnv, e)["s"]
	if got.AutoAllowReadOnly() {
		t.Error(`"auto_allow": false in the policy left the server's auto_allow`)
	}
	if w := got.Warnings(); len(w) != 1 || !strings.Contains(w[0], `"auto_allow": false`) {
		t.Errorf("warnings %q", w)
	}
	if same := judge(parse(t, `{}`), noEnv, e)["s"]; !same.AutoAllowReadOnly() {
		t.Error("a policy without auto_allow dropped it")
	}
	eff := &config.Effective{}
	parse(t, `{"servers": {"corp": {"url": "https://corp.example/mcp", "auto_allow": "read_only"}}}`).Apply(eff, noEnv)
	if len(eff.Servers) != 1 || !eff.Servers[0].AutoAllowReadOnly() {
		t.Errorf("a managed server's auto_allow did not count: %+v", eff.Servers)
	}
}

func TestToolDeny(t *testing.T) {
	p := parse(t, `{"tool_deny": ["*/delete_*", "fs/write"]}`)
	got := judge(p, noEnv, httpEntry("fs", "https://x.example/"), httpEntry("other", "https://y.example/"))
	for _, c := range []struct {
		id, tool string
		ok       bool
	}{{"fs", "delete_file", false}, {"fs", "write", false}, {"fs", "read", true}, {"other", "write", true}, {"other", "delete_all", false}} {
		if e := got[c.id]; e.ToolAllowed(c.tool) != c.ok {
			t.Errorf("%s/%s allowed %v, want %v", c.id, c.tool, !c.ok, c.ok)
		}
	}
}

func TestTokenStore(t *testing.T) {
	p := parse(t, `{"token_store": "keyring"}`)
	for req, want := range map[string]string{"": "keyring", "auto": "keyring", "file": "keyring", "keyring": "keyring"} {
		if got, note := p.TokenBackend(req); got != want || (req == "file") != (note != "") {
			t.Errorf("TokenBackend(%q) = %q, %q", req, got, note)
		}
	}
	if got, _ := parse(t, `{}`).TokenBackend("file"); got != "file" {
		t.Errorf("without token_store: %q", got)
	}
	if got, _ := (&Policy{}).TokenBackend("file"); got != "file" {
		t.Errorf("no policy: %q", got)
	}
	if bad := Parse("/p", []byte(`{"token_store": "file"}`)); bad.Err == nil {
		t.Error(`"token_store": "file" accepted`)
	}
}

func TestSandboxRequired(t *testing.T) {
	p := parse(t, `{"sandbox_required": true}`)
	off := stdioEntry("off", "node", "server.js")
	off.Config.Sandbox = &sandbox.Policy{Off: true}
	got := judge(p, noEnv, stdioEntry("local", "node", "server.js"), off, httpEntry("remote", "https://x.example/"))
	if b := got["off"].Blocked; b == nil || b.Rule != `"sandbox_required": true` {
		t.Errorf(`stdio server with "sandbox": false: %v`, b)
	}
	// A stdio server with its sandbox on runs where the OS offers one.
	if ok, why := sandbox.Available(); ok != (got["local"].Blocked == nil) {
		t.Errorf("sandbox available %v (%s), local blocked by %v", ok, why, got["local"].Blocked)
	}
	if b := got["remote"].Blocked; b != nil {
		t.Errorf("http server: %v", b)
	}
}

func TestOAuthCallbackPorts(t *testing.T) {
	p := parse(t, `{"oauth_callback_ports": [8976, 8977]}`)
	fixed := httpEntry("fixed", "https://x.example/")
	fixed.Config.OAuth = &config.OAuthConfig{CallbackPort: 9999}
	redirect := httpEntry("redirect", "https://x.example/")
	redirect.Config.OAuth = &config.OAuthConfig{RedirectURI: "http://127.0.0.1:8977/callback"}
	got := judge(p, noEnv, fixed, redirect, httpEntry("unset", "https://x.example/"))
	if b := got["fixed"].Blocked; b == nil || !strings.Contains(b.Reason, "9999") {
		t.Errorf("fixed: %v", b)
	}
	if b := got["redirect"].Blocked; b != nil {
		t.Errorf("redirect: %v", b)
	}
	if u := got["unset"]; u.Blocked != nil || u.Config.OAuth == nil || u.Config.OAuth.CallbackPort != 8976 {
		t.Errorf("unset: %+v", u)
	}
}

func TestMalformedPolicyFailsClosed(t *testing.T) {
	for _, c := range []struct{ name, text, where string }{
		{"syntax", "{\n  \"deny\": [\n    {\"url\": \"http://x\"},,\n  ]\n}", ":3:25: "},
		{"unknown key", "{\n  \"deny\": [],\n  \"alow\": []\n}", `:3:3: unknown key "alow"`},
		{"unknown rule key", "{\"deny\": [\n {\"uri\": \"http://x\"}]}", `:2:2: unknown key "uri"`},
		{"bad pattern", "{\"deny\": [{\"url\": \"ftp://x\"}]}", ":1:11: deny[0]: URL pattern"},
		{"star in path", "{\"allow\": [{\"url\": \"http://x/a*b\"}]}", ":1:12: allow[0]"},
		{"wrong type", "{\"project_servers\": \"no\"}", `:1:21: the value must be bool, not a JSON string`},
		{"empty", "", ":1:1: the file is empty"},
		{"not an object", "[]", ":1:1: "},
		{"duplicate key", "{\"deny\": [], \"deny\": []}", `:1:14: duplicate key "deny"`},
		{"bad forced server", "{\"servers\": {\"x\": {\"url\": \"ftp://x\"}}}", `server "x"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := Parse("/etc/mcp-host/managed.json", []byte(c.text+"\n"))
			if p.Err == nil || !strings.Contains(p.Err.Error(), "managed policy /etc/mcp-host/managed.json") || !strings.Contains(p.Err.Error(), c.where) {
				t.Fatalf("error %v, want the file and %q", p.Err, c.where)
			}
			got := judge(p, noEnv, httpEntry("mine", "https://x.example/"), stdioEntry("local", "node", "s.js"))
			for id, e := range got {
				if e.Blocked == nil || !strings.Contains(e.Blocked.Error(), p.Err.Error()) {
					t.Errorf("%s not blocked with the file's error: %v", id, e.Blocked)
				}
			}
		})
	}
	// What parsed of "servers" still runs: explicitly forced.
	p := Parse("/p.json", []byte(`{"servers": {"corp": {"url": "https://mcp.corp.example/"}}, "bogus": 1}`))
	got := judge(p, noEnv, httpEntry("mine", "https://x.example/"))
	if p.Err == nil || got["corp"].Blocked != nil || got["mine"].Blocked == nil {
		t.Errorf("err %v, corp %v, mine %v", p.Err, got["corp"].Blocked, got["mine"].Blocked)
	}
	// ... but a policy that fails closed approves nothing for the user.
	p = Parse("/p.json", []byte(`{"servers": {"corp": {"url": "https://mcp.corp.example/"}}, "servers_preapproved": true, "bogus": 1}`))
	if c := judge(p, noEnv)["corp"]; p.Err == nil || c.Preapproved || !c.NeedsApproval() {
		t.Errorf("a broken policy pre-approves its servers: err %v, %+v", p.Err, c)
	}
}

// Forced servers need the user's approval unless the policy gives it;
// the user's own servers need none.
func TestForcedServersPreapproved(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{"servers": {"corp": {"url": "https://mcp.corp.example/"}}}`, true},
		{`{"servers": {"corp": {"url": "https://mcp.corp.example/"}}, "servers_preapproved": false}`, true},
		{`{"servers": {"corp": {"url": "https://mcp.corp.example/"}}, "servers_preapproved": true}`, false},
	} {
		got := judge(parse(t, c.text), noEnv, httpEntry("mine", "https://x.example/"))
		corp, mine := got["corp"], got["mine"]
		if corp.NeedsApproval() != c.want || mine.NeedsApproval() {
			t.Errorf("%s: corp needs approval %v (want %v), mine %v", c.text, corp.NeedsApproval(), c.want, mine.NeedsApproval())
		}
	}
	if p := Parse("/p.json", []byte(`{"servers_preapproved": "yes"}`)); p.Err == nil || !strings.Contains(p.Err.Error(), ":1:25: the value must be bool") {
		t.Errorf("a non-bool servers_preapproved: %v", p.Err)
	}
}

func TestLoadAndLocate(t *testing.T) {
	dir := t.TempDir()
	if p := Load(filepath.Join(dir, "absent.json"), false); p.Active() {
		t.Errorf("an absent system file is a policy: %+v", p)
	}
	if p := Load(filepath.Join(dir, "absent.json"), true); p.Err == nil {
		t.Error("an absent file MCP_HOST_MANAGED_POLICY names does not fail closed")
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(`{"$comment": "`+strings.Repeat("x", maxFileSize)+`"}`), 0o600)
	if p := Load(big, true); p.Err == nil || !errors.Is(p.Err, statefile.ErrTooLarge) || !strings.Contains(p.Err.Error(), big) {
		t.Errorf("big file: %v", p.Err)
	}
	deep := filepath.Join(dir, "deep.json")
	os.WriteFile(deep, []byte(`{"deny": `+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}`), 0o600)
	if p := Load(deep, true); p.Err == nil || !errors.Is(p.Err, statefile.ErrTooDeep) {
		t.Errorf("deep file: %v", p.Err)
	}
	sys, env := filepath.Join(dir, "sys.json"), filepath.Join(dir, "env.json")
	getenv := func(k string) string { return map[string]string{EnvVar: env}[k] }
	if f, explicit, note := locate(sys, getenv); f != env || !explicit || note != "" {
		t.Errorf("no system file: %q %v %q", f, explicit, note)
	}
	os.WriteFile(sys, []byte(`{}`), 0o600)
	if f, explicit, note := locate(sys, getenv); f != sys || explicit || !strings.Contains(note, "ignored") {
		t.Errorf("a user's variable replaced the system policy: %q %v %q", f, explicit, note)
	}
	for goos, want := range map[string]string{"linux": "/etc/mcp-host/managed.json", "darwin": "/Library/Application Support/mcp-host/managed.json", "windows": `D:\PD\mcp-host\managed.json`} {
		if got := SystemPath(goos, func(string) string { return `D:\PD` }); got != want {
			t.Errorf("%s: %q", goos, got)
		}
	}
}
