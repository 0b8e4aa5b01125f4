package main

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// completeEnv is a user with two servers: lz, a stdio server whose
// catalog host serve kept (hostile names in it, beta excluded by the
// config), and docs, an http server with none. Neither can start.
func completeEnv(t *testing.T) {
	t.Helper()
	cliEnv(t, `{
		"lz": {"command": "/nonexistent/lz", "args": ["-v"], "env": {"TOKEN": "s3cr3t"}, "exclude_tools": ["beta"], "sandbox": false},
		"docs": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer s3cr3t"}}
	}`)
	t.Setenv("MCP_HOST_CACHE_DIR", t.TempDir())
	cc := &completer{}
	keepCatalog(t, cc, "lz", "alpha", "beta", "ns:read", "ok.name/x", "evil\x1b]0;pwned\x07", "has space", "-yes", "semi;colon", "zero\u200bwidth", "bell\a", "$(touch x)")
}

// keepCatalog keeps a catalog of these tool names for server id, as host
// serve keeps one.
func keepCatalog(t *testing.T, cc *completer, id string, names ...string) {
	t.Helper()
	dir, err := listcache.CacheDir("catalogs")
	if err != nil {
		t.Fatal(err)
	}
	var tools []*mcp.Tool
	for _, n := range names {
		tools = append(tools, &mcp.Tool{Name: n, InputSchema: map[string]any{"type": "object"}})
	}
	for _, e := range cc.entries() {
		if e.ID == id {
			(&listcache.Catalogs{Dir: listcache.Dir{Path: dir}}).Store(runtime.CatalogKey(e.ID, &e.Config), &listcache.Catalog{ServerName: "lz", SavedAt: time.Now(), Tools: tools})
			return
		}
	}
	t.Fatalf("no server %q", id)
}

// complete runs host __complete with args and returns its candidates and
// its directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, errOut, code := runHost(append([]string{"__complete"}, args...)...)
	if code != exitOK || errOut != "" {
		t.Fatalf("host __complete %q: code %d, stderr %q", args, code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// host __complete offers, for the word under the cursor: commands, a
// command's flags, their fixed values, the configured servers' ids and the
// tools host serve kept for a server, the hostile ones left out.
func TestCompleteCandidates(t *testing.T) {
	completeEnv(t)
	tools := []string{"alpha", "ns:read", "ok.name/x"}
	for _, tc := range []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"--", ""}, topCommands, ":4"},
		{[]string{"--", "--"}, []string{"--help", "--version"}, ":4"},
		{[]string{"mcp", "g"}, []string{"get"}, ":4"},
		{[]string{"--", "completion", ""}, completionShells, ":4"},
		{[]string{"--", "help", "mcp", "lo"}, []string{"login", "logout"}, ":4"},
		{[]string{"--", "protocol", ""}, []string{"schema", "generate"}, ":4"},
		{[]string{"--", "mcp", "get", ""}, []string{"docs", "lz"}, ":4"},
		{[]string{"--", "mcp", "remove", "l"}, []string{"lz"}, ":4"},
		{[]string{"--", "mcp", "get", "lz", ""}, nil, ":4"},
		{[]string{"--", "mcp", "test", "lz", ""}, []string{"docs"}, ":4"},
		{[]string{"--", "mcp", "call", "lz", ""}, tools, ":4"},
		{[]string{"--", "mcp", "call", "--yes", "lz", "a"}, []string{"alpha"}, ":4"},
		{[]string{"--", "mcp", "call", "docs", ""}, nil, ":4"},
		{[]string{"--", "mcp", "call", "nosuch", ""}, nil, ":4"},
		{[]string{"--", "mcp", "test", "lz", "--probe", ""}, tools, ":4"},
		{[]string{"--", "mcp", "permissions", ""}, []string{"list", "revoke"}, ":4"},
		{[]string{"--", "mcp", "permissions", "revoke", "lz", ""}, tools, ":4"},
		{[]string{"--", "mcp", "permissions", "revoke", "--a"}, []string{"--all"}, ":4"},
		{[]string{"--", "mcp", "permissions", "--a"}, nil, ":4"},
		{[]string{"--", "mcp", "call", "lz", "alpha", "--"}, []string{"--help", "--allow", "--args", "--deny", "--json", "--yes"}, ":4"},
		// A flag given once is not offered again; a repeatable one is.
		{[]string{"--", "mcp", "call", "--yes", "--allow", "x", "lz", "alpha", "--"}, []string{"--help", "--allow", "--args", "--deny", "--json"}, ":4"},
		{[]string{"--", "mcp", "add", "x", "--sandbox", ""}, []string{"default", "strict", "false"}, ":4"},
		{[]string{"--", "mcp", "add", "x", "-t", ""}, []string{"http", "sse", "stdio"}, ":4"},
		{[]string{"--", "mcp", "add", "x", "--transport=s"}, []string{"--transport=sse", "--transport=stdio"}, ":4"},
		{[]string{"--", "mcp", "add", "x", "-s", ""}, []string{"project", "global"}, ":4"},
		{[]string{"--", "mcp", "add", "x", "--use", "n"}, []string{"npm", "nuget"}, ":4"},
		{[]string{"--", "mcp", "add", "x", "--", "np"}, nil, ":0"}, // the command line: files
		{[]string{"--", "mcp", "add", ""}, nil, ":4"},
		{[]string{"--", "mcp", "list", "--scope", ""}, []string{"effective", "project", "global"}, ":4"},
		{[]string{"--", "mcp", "import", "--from", "c"}, []string{"claude-code", "claude-desktop", "codex", "cursor"}, ":0"},
		{[]string{"--", "mcp", "import", "--from", "./conf"}, nil, ":0"},
		{[]string{"--", "serve", "--m"}, []string{"--model"}, ":4"},
		{[]string{"--", "web", "--no"}, []string{"--no-browser"}, ":4"},
		{[]string{"--", "serve", "--script", ""}, nil, ":0"},
		// PowerShell drops an empty last argument: --new stands for it.
		{[]string{"--new", "--", "mcp", "get"}, []string{"docs", "lz"}, ":4"},
		// bash splits words at = and :, and replaces only the part after.
		{[]string{"--bash", "--", "mcp", "add", "x", "--scope", "=", "g"}, []string{"global"}, ":4"},
		{[]string{"--bash", "--", "mcp", "add", "x", "--scope", "="}, []string{"project", "global"}, ":4"},
		{[]string{"--bash", "--", "mcp", "call", "lz", "ns", ":", "r"}, []string{"read"}, ":4"},
		{[]string{"--bash", "--", "mcp", "call", "lz", "ns", ":"}, []string{"read"}, ":4"},
		{[]string{"--bash", "--", "mcp", "add", "x", "-e", "K", "=", "V", "--tr"}, []string{"--transport", "--trust"}, ":4"},
	} {
		got, directive := complete(t, tc.args...)
		if !slices.Equal(got, tc.want) || directive != tc.directive {
			t.Errorf("host __complete %q:\n got %q %s\nwant %q %s", tc.args, got, directive, tc.want, tc.directive)
		}
	}
}

// Nothing completion prints comes from a server unchecked: no control
// character, no space, no shell metacharacter, no secret of the config.
func TestCompleteDropsHostileNames(t *testing.T) {
	completeEnv(t)
	for _, args := range [][]string{
		{"--", "mcp", "call", "lz", ""},
		{"--", "mcp", "permissions", "revoke", "lz", ""},
		{"--", "mcp", "test", "lz", "--probe", ""},
		{"--", "mcp", "get", ""},
	} {
		out, _, _ := runHost(append([]string{"__complete"}, args...)...)
		for _, bad := range []string{"\x1b", "\a", "pwned", " ", ";", "$", "(", "-yes", "\u200b", "s3cr3t"} {
			if strings.Contains(out, bad) {
				t.Errorf("host __complete %q printed %q:\n%q", args, bad, out)
			}
		}
	}
}

// The flags completion offers are each command's own flag set: every
// host mcp command (and both forms of permissions) and every top-level
// command that takes flags has one, and each of its flags is offered.
func TestCompletionFlagsOfEveryCommand(t *testing.T) {
	completeEnv(t)
	check := func(fs *flag.FlagSet, words ...string) {
		t.Helper()
		if fs == nil {
			t.Errorf("%q: no flag set caught", words)
			return
		}
		got, _ := complete(t, append(append([]string{"--"}, words...), "-")...)
		fs.VisitAll(func(f *flag.Flag) {
			want := "--" + f.Name
			if len(f.Name) == 1 {
				want = "-" + f.Name
			}
			if !slices.Contains(got, want) {
				t.Errorf("%q: %s is not offered (got %q)", words, want, got)
			}
		})
	}
	for name := range (&cli{}).commands() {
		check(mcpFlags(name), "mcp", name)
	}
	check(mcpFlags("permissions revoke"), "mcp", "permissions", "revoke")
	if fs := mcpFlags("permissions revoke"); fs == nil || fs.Lookup("all") == nil {
		t.Error("permissions revoke: no --all")
	}
	// A top-level command takes flags (flagged) or none; a new one must
	// be sorted into one of the two.
	noFlags := []string{"mcp", "protocol", "completion", "help", "version"}
	for _, name := range topCommands {
		_, ok := flagged[name]
		if ok == slices.Contains(noFlags, name) {
			t.Errorf("top-level command %q: is it flagged or not?", name)
		}
		if ok {
			check(topFlags(name), name)
		}
	}
}

// Every host mcp command says what its positional arguments are.
func TestCompletionKnowsEveryMCPCommand(t *testing.T) {
	for name := range (&cli{}).commands() {
		if _, ok := mcpArgs[name]; !ok {
			t.Errorf("mcpArgs has no entry for host mcp %s", name)
		}
	}
}

// The catalog completion reads is the one host serve keeps: a
// runtime.Manager offers a catalog kept under runtime.CatalogKey for a server
// that starts on first use, without starting it.
func TestCompletionCatalogKeyIsTheRuntimes(t *testing.T) {
	cliEnv(t, `{"lz": {"transport": "stdio", "command": "/nonexistent/lz", "args": ["-a", "b"], "cwd": "/tmp",
		"env": {"B": "x", "A": "y"}, "env_vars": ["HOME"], "protocol_version": "2025-06-18", "sandbox": false}}`)
	dir := filepath.Join(t.TempDir(), "catalogs")
	t.Setenv("MCP_HOST_CACHE_DIR", filepath.Dir(dir))
	cc := &completer{}
	keepCatalog(t, cc, "lz", "alpha", "beta")
	m := runtime.NewManager(runtime.ManagerOptions{Catalogs: &listcache.Catalogs{Dir: listcache.Dir{Path: dir}}})
	defer m.Close()
	m.Apply(cc.entries())
	st, err := m.Get("lz")
	if err != nil || !st.Cached || st.State != runtime.StateIdle || st.Tools != 2 {
		t.Fatalf("status %+v, %v: want idle with the 2 kept tools", st, err)
	}
	if got := cc.tools("lz"); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Errorf("tools %q", got)
	}
}

// joinBreaks undoes bash's split at "=" and ":".
func TestCompletionJoinBreaks(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		trim string
	}{
		{[]string{"mcp", "get", ""}, []string{"mcp", "get", ""}, ""},
		{[]string{"--scope", "=", "pr"}, []string{"--scope=pr"}, "--scope="},
		{[]string{"--scope", "="}, []string{"--scope="}, "--scope="},
		{[]string{"--scope", "=", ""}, []string{"--scope=", ""}, ""},
		{[]string{"-e", "K", "=", "V", "x"}, []string{"-e", "K=V", "x"}, ""},
		{[]string{"a", ":", "b", ":", "c"}, []string{"a:b:c"}, "a:b:"},
	} {
		got, trim := joinBreaks(tc.in)
		if !slices.Equal(got, tc.want) || trim != tc.trim {
			t.Errorf("joinBreaks(%q) = %q, %q; want %q, %q", tc.in, got, trim, tc.want, tc.trim)
		}
	}
}

// "--" only ends the options: a word that is no option starts the words
// too (PowerShell might drop the "--" its script passes).
func TestCompleteOptions(t *testing.T) {
	completeEnv(t)
	for _, args := range [][]string{{"--", "mcp", "get", ""}, {"mcp", "get", ""}, {"--new", "mcp", "get"}, {"--new", "--", "mcp", "get"}} {
		if got, directive := complete(t, args...); !slices.Equal(got, []string{"docs", "lz"}) || directive != ":4" {
			t.Errorf("host __complete %q: %q %s", args, got, directive)
		}
	}
	if got, _ := complete(t, "--", "--new"); len(got) != 0 {
		t.Errorf("host __complete -- --new: %q, want nothing (a word, not an option)", got)
	}
}
