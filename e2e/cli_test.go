package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// hostCLI runs the package's host binary (buildHost) with a private global
// config and an empty project directory.
type hostCLI struct {
	bin, dir, global string
}

func newHostCLI(t *testing.T) *hostCLI {
	t.Helper()
	tmp := t.TempDir()
	bin := buildHost(t)
	dir := filepath.Join(tmp, "project")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &hostCLI{bin: bin, dir: dir, global: filepath.Join(tmp, "global", "config.json")}
}

// run returns stdout, stderr and the exit code.
func (h *hostCLI) run(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(h.bin, args...)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), append([]string{"MCP_HOST_CONFIG=" + h.global, "MCP_HOST_SERVERS="}, env...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

func TestCLIAgainstEverything(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	argv := testenv.NodeBin(t, "mcp-server-everything")
	h := newHostCLI(t)
	const secret = "s3cr3t-value-never-shown"
	addArgs := []string{"mcp", "add", "everything", "--transport", "stdio", "--command", argv[0], "--arg", argv[1], "--arg", "stdio", "--env", "API_TOKEN=" + secret}
	if out, errOut, code := h.run(t, nil, addArgs...); code != 0 || !strings.Contains(out, "added everything") {
		t.Fatalf("add: code %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := h.run(t, nil, addArgs...); code != 2 || !strings.Contains(errOut, "already exists") {
		t.Errorf("second add: code %d, stderr %q; want 2 and 'already exists'", code, errOut)
	}
	if _, errOut, code := h.run(t, nil, "mcp", "add", "bad id!", "--url", "http://x"); code != 2 || !strings.Contains(errOut, "invalid server id") {
		t.Errorf("bad id: code %d, stderr %q", code, errOut)
	}

	out, _, code := h.run(t, nil, "mcp", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["id"] != "everything" || list[0]["source"] != "global" {
		t.Fatalf("list --json: code %d: %s", code, out)
	}

	out, errOut, code := h.run(t, nil, "mcp", "test", "everything")
	if code != 0 || !strings.Contains(out, "ok: everything is ready") {
		t.Fatalf("test: code %d\n%s%s", code, out, errOut)
	}

	out, _, code = h.run(t, nil, "mcp", "tools", "everything", "--json")
	var tools []struct {
		PublicName   string `json:"public_name"`
		Server, Tool string
	}
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil {
		t.Fatalf("tools --json: code %d: %s", code, out)
	}
	found := false
	for _, tl := range tools {
		if tl.Tool == "echo" && tl.Server == "everything" && strings.HasPrefix(tl.PublicName, "mcp_everything_echo_") {
			found = true
		}
	}
	if !found {
		t.Errorf("tools: no adapted echo in %s", out)
	}

	out, errOut, code = h.run(t, nil, "mcp", "call", "everything", "echo", "--args", `{"message":"hi from the CLI"}`, "--yes")
	if code != 0 || !strings.Contains(out, "hi from the CLI") {
		t.Errorf("call --yes: code %d\n%s%s", code, out, errOut)
	}
	// No terminal and no --yes: refused, nothing called.
	_, errOut, code = h.run(t, nil, "mcp", "call", "everything", "echo", "--args", `{"message":"x"}`)
	if code != 4 || !strings.Contains(errOut, "--yes") {
		t.Errorf("call without --yes: code %d, stderr %q; want 4", code, errOut)
	}

	out, errOut, code = h.run(t, nil, "mcp", "get", "everything")
	if code != 0 || !strings.Contains(out, "state:") || !strings.Contains(out, "ready") || !strings.Contains(out, "API_TOKEN") {
		t.Errorf("get: code %d\n%s%s", code, out, errOut)
	}
	jsonOut, _, _ := h.run(t, nil, "mcp", "get", "everything", "--json")
	for _, o := range []string{out, jsonOut} {
		if strings.Contains(o, secret) {
			t.Errorf("mcp get shows an env value:\n%s", o)
		}
	}

	// Turned off in the project, still defined globally.
	if _, errOut, code := h.run(t, nil, "mcp", "disable", "everything", "--scope", "project"); code != 0 {
		t.Fatalf("disable: %d %s", code, errOut)
	}
	out, _, _ = h.run(t, nil, "mcp", "list")
	if !strings.Contains(out, "false") || !strings.Contains(out, "project") {
		t.Errorf("list after project disable:\n%s", out)
	}
	if _, _, code := h.run(t, nil, "mcp", "remove", "everything", "--scope", "global"); code != 0 {
		t.Errorf("remove: %d", code)
	}
}

func TestCLIConfigErrors(t *testing.T) {
	h := newHostCLI(t)
	if err := os.MkdirAll(filepath.Dir(h.global), 0o700); err != nil {
		t.Fatal(err)
	}
	// A broken file names its line and column and is never rewritten.
	broken := "{\n  \"version\": 1,\n  \"mcp\": {\"servers\": {\"a\": {\"url\": \"http://x\",}}}\n}\n"
	if err := os.WriteFile(h.global, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ := h.run(t, nil, "mcp", "list")
	if !strings.Contains(errOut, h.global+":3:") {
		t.Errorf("list on a broken file: stderr %q, want the path and line 3", errOut)
	}
	_, errOut, code := h.run(t, nil, "mcp", "add", "b", "--url", "http://127.0.0.1:1/mcp")
	if code != 2 || !strings.Contains(errOut, ":3:") {
		t.Errorf("add into a broken file: code %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(h.global); string(b) != broken {
		t.Error("the broken file was rewritten")
	}

	// A bad entry disables only itself, with file, server and field named.
	good := `{"version":1,"mcp":{"servers":{"ok":{"command":"true"},"typo":{"comand":"x"}}}}`
	if err := os.WriteFile(h.global, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ := h.run(t, nil, "mcp", "list")
	if !strings.Contains(out, "ok") || !strings.Contains(out, `server "typo": field "comand": unknown field`) || !strings.Contains(out, h.global) {
		t.Errorf("list with a bad entry:\n%s", out)
	}

	// Import from a Claude Desktop style file.
	imp := filepath.Join(h.dir, "claude.json")
	os.WriteFile(imp, []byte(`{"mcpServers":{"files":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"]},"remote api":{"url":"https://example.com/mcp","type":"http"}}}`), 0o600)
	out, errOut, code = h.run(t, nil, "mcp", "import", "--from", imp, "--scope", "project")
	if code != 0 || !strings.Contains(out, "imported 2") {
		t.Fatalf("import: code %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, `"env_vars"`) {
		t.Errorf("import of a stdio server does not say how to pass environment variables:\n%s", out)
	}
	out, _, _ = h.run(t, nil, "mcp", "list", "--scope", "project")
	if !strings.Contains(out, "files") || !strings.Contains(out, "remote-api") {
		t.Errorf("imported servers not listed:\n%s", out)
	}
}
