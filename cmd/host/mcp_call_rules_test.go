package main

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/permission"
)

// `host mcp call` takes deny and allow rules as host serve does (--deny,
// --allow server/tool globs) and decides through the same gate: a deny
// rule refuses the call with exit 4 and names the rule, even with --yes,
// an always-allow answer remembered, or a trusted server; an allow rule
// lets a call run without asking.
func TestMCPCallHonoursRules(t *testing.T) {
	url, calls := echoServer(t)
	global := cliEnv(t, `{"notes":{"transport":"http","url":"`+url+`"},"vault":{"transport":"http","url":"`+url+`","trust":true},"plain":{"transport":"http","url":"`+url+`"}}`)
	store, err := permission.OpenStore(defaultPermissions(global))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AllowServer("notes"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"call", "notes", "echo", "--deny", "notes/echo"},
		{"call", "notes", "echo", "--deny", "notes/*", "--yes"},
		{"call", "notes", "echo", "--deny", "*/ec*", "--allow", "notes/echo"},
		{"call", "vault", "echo", "--deny", "vault/echo"},
	} {
		_, errOut, code := runCLI("", args...)
		if code != exitDenied || !strings.Contains(errOut, "denied by rule "+args[4]) || calls.Load() != 0 {
			t.Errorf("%v: code %d, stderr %q, %d calls; want %d, the rule named, no call", args, code, errOut, calls.Load(), exitDenied)
		}
	}

	// An allow rule: no terminal, no --yes, nothing remembered for plain.
	out, errOut, code := runCLI("", "call", "plain", "echo", "--args", `{"text":"ruled"}`, "--allow", "plain/echo")
	if code != exitOK || !strings.Contains(out, "echo: ruled") {
		t.Errorf("allow rule: code %d\n%s%s", code, out, errOut)
	}

	_, errOut, code = runCLI("", "call", "notes", "echo", "--deny", "notes")
	if code != exitUsage || !strings.Contains(errOut, "--deny") {
		t.Errorf("malformed rule: code %d, stderr %q; want %d naming --deny", code, errOut, exitUsage)
	}
}
