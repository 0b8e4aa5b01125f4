package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNpxCommandLine(t *testing.T) {
	for _, c := range []struct {
		args          []string
		pkgs, flags   []string
		program, rest string
	}{
		{[]string{"-y", "@scope/server", "/data"}, []string{"@scope/server"}, nil, "", "/data"},
		{[]string{"--yes", "--registry=http://r/", "srv@1.2.3"}, []string{"srv@1.2.3"}, []string{"--registry=http://r/"}, "", ""},
		{[]string{"-p", "a", "--package=b", "tool", "x", "y"}, []string{"a", "b"}, nil, "tool", "x y"},
		{[]string{"-y", "--", "srv", "--flag"}, []string{"srv"}, nil, "", "--flag"},
		{[]string{"-c", "echo hi"}, nil, nil, "", ""},
		{[]string{"--unknown", "srv"}, nil, nil, "", ""},
		{[]string{"-y"}, nil, nil, "", ""},
	} {
		pkgs, flags, program, rest := npxCommandLine(c.args)
		if !slices.Equal(pkgs, c.pkgs) || !slices.Equal(flags, c.flags) || program != c.program || strings.Join(rest, " ") != c.rest {
			t.Errorf("npxCommandLine(%q) = %q %q %q %q, want %q %q %q %q", c.args, pkgs, flags, program, rest, c.pkgs, c.flags, c.program, c.rest)
		}
	}
}

// PlanFetch plans an install only for npx without network, recorded per
// set of packages, with npm beside npx, the host's registry settings and
// without npm's offline switch; Program picks the bin npx would.
func TestPlanFetch(t *testing.T) {
	state := t.TempDir()
	launcher := filepath.Join(t.TempDir(), "launchers", "srv")
	ctx := Context{Home: t.TempDir(), Cwd: filepath.Join(state, "work"), StateDir: state, LauncherDir: launcher}
	strict := &Effective{Base: BaseStrict, Network: NetworkNone}
	args := []string{"-y", "@scope/srv", "/data"}
	env := []string{"PATH=/bin", "npm_config_offline=true"}
	host := []string{"HTTPS_PROXY=http://proxy:3128", "npm_config_registry=http://127.0.0.1:1/", "OPENAI_API_KEY=secret"}
	if PlanFetch(&Effective{Base: BaseDefault, Network: NetworkAll}, ctx, "/usr/bin/npx", args, env, host) != nil {
		t.Error("an install planned for a server with network")
	}
	if PlanFetch(strict, ctx, "/usr/bin/node", args, env, host) != nil {
		t.Error("an install planned for a command that is not npx")
	}
	f := PlanFetch(strict, ctx, "/usr/bin/npx", args, env, host)
	if f == nil || f.Cmd == nil {
		t.Fatal("no install planned for npx under strict")
	}
	if f.Cmd.Path != "/usr/bin/npm" || !slices.Contains(f.Cmd.Args, "--ignore-scripts") || !slices.Contains(f.Cmd.Args, "@scope/srv") {
		t.Errorf("install command: %s %q", f.Cmd.Path, f.Cmd.Args)
	}
	if f.Cmd.Dir != f.Prefix {
		t.Errorf("the install runs in %s, want its prefix: the server writes its own work directory (an .npmrc there would steer it)", f.Cmd.Dir)
	}
	joined := strings.Join(f.Cmd.Env, "\n")
	for _, want := range []string{"HTTPS_PROXY=http://proxy:3128", "npm_config_registry=http://127.0.0.1:1/", "npm_config_cache=" + filepath.Join(launcher, "cache")} {
		if !strings.Contains(joined, want) {
			t.Errorf("install env lacks %s:\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "OPENAI_API_KEY") || strings.Contains(joined, "npm_config_offline") {
		t.Errorf("install env carries what it must not:\n%s", joined)
	}
	if f.Policy.Network == nil || f.Policy.Network.Mode != NetworkAll || !slices.Contains(f.Policy.Write, f.Prefix) {
		t.Errorf("install policy: %+v", f.Policy)
	}
	if len(f.Policy.Read) != 0 {
		t.Errorf("install policy reads %v without a ~/.npmrc", f.Policy.Read)
	}
	if err := os.WriteFile(filepath.Join(ctx.Home, ".npmrc"), []byte("registry=http://127.0.0.1:1/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if g := PlanFetch(strict, ctx, "/usr/bin/npx", args, env, host); g == nil || !slices.Equal(g.Policy.Read, []string{filepath.Join(ctx.Home, ".npmrc")}) {
		t.Errorf("the user's ~/.npmrc is not granted to the install: %+v", g)
	}
	// As npm would leave it: the package, its bin link.
	pkg := filepath.Join(f.Prefix, "node_modules", "@scope", "srv")
	bin := filepath.Join(f.Prefix, "node_modules", ".bin", "srv-server")
	if err := os.MkdirAll(pkg, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@scope/srv","bin":{"srv-server":"index.js"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, nil, 0o700); err != nil {
		t.Fatal(err)
	}
	if f.Record != filepath.Join(launcher, "installed") {
		t.Errorf("record at %s", f.Record)
	}
	program, rest, err := f.Program(os.ReadFile)
	if err != nil || program != bin || !slices.Equal(rest, []string{"/data"}) {
		t.Errorf("Program() = %q %q %v, want %q [/data]", program, rest, err, bin)
	}
	other := PlanFetch(strict, ctx, "/usr/bin/npx", []string{"-y", "@scope/srv@2"}, env, host)
	if other == nil || string(other.RecordData()) == string(f.RecordData()) {
		t.Error("another version reads as the same install")
	}
}

// No server writes its launcher directory, under any base: what a server
// left there could steer the next install (which has the network) or
// change what a strict server runs. Strict reads it once it exists.
func TestLauncherDirIsNeverWritable(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".cache", "mcp-host", "servers", "srv")
	launcher := filepath.Join(home, ".cache", "mcp-host", "launchers", "srv")
	ctx := Context{Home: home, Cwd: filepath.Join(state, "work"), StateDir: state, LauncherDir: launcher,
		HostPaths: []string{filepath.Join(home, ".cache", "mcp-host")}, Args: []string{launcher}}
	for _, base := range []string{BaseDefault, BaseStrict} {
		eff, err := Resolve(Policy{Base: base}, ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range eff.Write {
			if within(launcher, w) {
				t.Errorf("%s: %s writable (through %s), though the server's own words name it", base, launcher, w)
			}
		}
	}
	if err := os.MkdirAll(launcher, 0o700); err != nil {
		t.Fatal(err)
	}
	eff, _ := Resolve(Policy{Base: BaseStrict}, ctx)
	if !slices.Contains(eff.Read, launcher) || !strings.Contains(eff.Summary(), "its launcher's install ~/.cache/mcp-host/launchers/srv") {
		t.Errorf("strict does not read (or say it reads) its launcher's install: %v\n%s", eff.Read, eff.Summary())
	}
}
