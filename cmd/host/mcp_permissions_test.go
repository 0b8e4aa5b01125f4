package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/permission"
)

// TestPermissionsCommandLine: host mcp permissions lists what the file
// holds, with a terminal-safe table; its usage mistakes are one line and
// exit 2; a revoke says what it took back.
func TestPermissionsCommandLine(t *testing.T) {
	t.Setenv("MCP_HOST_CONFIG", filepath.Join(t.TempDir(), "config.json"))
	t.Setenv("MCP_HOST_SERVERS", "")
	file := filepath.Join(t.TempDir(), "permissions.json")
	store, err := permission.OpenStore(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AllowTool("gh|k", "create\x1b[31missue", "d"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runHost("mcp", "permissions", "--permissions", file)
	if code != exitOK || !strings.Contains(out, "gh") || strings.Contains(out, "\x1b") || !strings.Contains(out, "not the configured server") {
		t.Errorf("list: code %d\n%q%s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lst"}, `did you mean "list"?`},
		{[]string{"revoke", "gh", "--all"}, "--all takes no server or tool"},
		{[]string{"revoke"}, "want <id> [<tool>], or --all"},
		{[]string{"list", "a", "b"}, "want at most one server id"},
		{[]string{"list", "--all"}, "flag provided but not defined: -all"},
		{[]string{"revoke", "gh", "nope"}, `no remembered answer for tool "nope" of server "gh"`},
	} {
		_, errOut, code := runHost(append(append([]string{"mcp", "permissions"}, c.args...), "--permissions", file)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: code %d, stderr %q; want exit 2 saying %q", c.args, code, errOut, c.want)
		}
	}
	out, errOut, code = runHost("mcp", "permissions", "revoke", "--all", "--permissions", file)
	if code != exitOK || !strings.Contains(out, "revoked: always allow tool") {
		t.Errorf("revoke --all: code %d\n%s%s", code, out, errOut)
	}
}
