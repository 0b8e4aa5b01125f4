package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// host mcp add writes the sandbox flags into the entry and says what the
// server will be allowed, naming the directory its arguments give that the
// policy does not grant.
func TestAddSandboxFlags(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(dir, "g.json")
	add := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		c := &cli{stdout: &out, stderr: &errOut, global: global}
		code := c.add(args)
		return out.String(), errOut.String(), code
	}
	out, errOut, code := add("files", "--sandbox", "strict", "--sandbox-read", "~/docs", "--", "fs-server", data)
	if code != 0 {
		t.Fatalf("add: %d %s", code, errOut)
	}
	if !strings.Contains(out, "sandbox: strict: reads system, toolchains, own files, ~/docs; writes cwd ") || !strings.Contains(out, "not granted: "+data+" (named in its arguments); to let it read and write there: --sandbox-write "+data) {
		t.Errorf("add says:\n%s", out)
	}
	b, _ := os.ReadFile(global)
	if !strings.Contains(string(b), `"sandbox": {`) || !strings.Contains(string(b), `"base": "strict"`) || !strings.Contains(string(b), `"~/docs"`) {
		t.Errorf("config:\n%s", b)
	}
	out, _, code = add("files2", "--sandbox-write", data, "--", "fs-server", data)
	if code != 0 || strings.Contains(out, "not writable") || !strings.Contains(out, "sandbox: default: reads system, toolchains, own files; writes cwd ") || !strings.Contains(out, data+",") && !strings.Contains(out, data+";") {
		t.Errorf("granted: code %d:\n%s", code, out)
	}
	// The default grants what the user's own arguments name.
	out, _, _ = add("files3", "--", "fs-server", data)
	if strings.Contains(out, "not writable: "+data) || !strings.Contains(out, data+" (named in its config)") {
		t.Errorf("default, named in its arguments:\n%s", out)
	}
	// A relative directory is the server's own cwd's, which add says.
	out, _, _ = add("rel", "--", "fs-server", ".")
	if !strings.Contains(out, "note: . is relative: the server runs in ") || !strings.Contains(out, "servers/rel/work") {
		t.Errorf("relative argument:\n%s", out)
	}
	for _, bad := range [][]string{
		{"x1", "--sandbox", "loose", "--", "s"},
		{"x2", "--sandbox", "false", "--sandbox-read", "/d", "--", "s"},
		{"x3", "--sandbox", "strict", "https://example.com/mcp"},
	} {
		if _, errOut, code := add(bad...); code != exitUsage || !strings.Contains(errOut, "sandbox") {
			t.Errorf("%v: code %d, stderr %q", bad, code, errOut)
		}
	}
}
