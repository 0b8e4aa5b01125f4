package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/runtime/permission"
)

// readServers returns the servers of a config file as written.
func readServers(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		MCP struct {
			Servers map[string]map[string]any `json:"servers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f.MCP.Servers
}

// TestCLIAddConventions: the forms claude mcp and codex mcp users type.
func TestCLIAddConventions(t *testing.T) {
	h := newHostCLI(t)
	out, errOut, code := h.run(t, nil, "mcp", "add", "memory", "-e", "MEMORY_FILE=/tmp/m.json", "--", "npx", "-y", "@modelcontextprotocol/server-memory", "--port", "3")
	if code != 0 || !strings.Contains(out, "added memory") {
		t.Fatalf("add memory -- npx -y ...: code %d\n%s%s", code, out, errOut)
	}
	s := readServers(t, h.global)["memory"]
	if s["command"] != "npx" || !reflect.DeepEqual(s["args"], []any{"-y", "@modelcontextprotocol/server-memory", "--port", "3"}) {
		t.Errorf("memory written as %v", s)
	}
	if env, _ := s["env"].(map[string]any); env["MEMORY_FILE"] != "/tmp/m.json" {
		t.Errorf("-e not kept: %v", s)
	}

	out, errOut, code = h.run(t, nil, "mcp", "add", "remote", "https://example.com/mcp", "-H", "Authorization: Bearer ${REMOTE_TOKEN}", "--header", "X-Team=blue", "-s", "project")
	if code != 0 || !strings.Contains(out, "added remote") {
		t.Fatalf("add remote URL: code %d\n%s%s", code, out, errOut)
	}
	r := readServers(t, filepath.Join(h.dir, ".mcp-host", "config.json"))["remote"]
	hdr, _ := r["headers"].(map[string]any)
	if r["url"] != "https://example.com/mcp" || hdr["Authorization"] != "Bearer ${REMOTE_TOKEN}" || hdr["X-Team"] != "blue" {
		t.Errorf("remote written as %v", r)
	}
	if tr, ok := r["transport"]; ok && tr != "http" {
		t.Errorf("remote transport %v, want http (inferred)", tr)
	}

	out, errOut, code = h.run(t, nil, "mcp", "add", "legacy", "-t", "sse", "http://127.0.0.1:1/sse")
	if code != 0 {
		t.Fatalf("add -t sse URL: code %d\n%s%s", code, out, errOut)
	}
	if l := readServers(t, h.global)["legacy"]; l["transport"] != "sse" || l["url"] != "http://127.0.0.1:1/sse" {
		t.Errorf("legacy written as %v", l)
	}

	// The long forms still work.
	if out, errOut, code := h.run(t, nil, "mcp", "add", "old", "--transport", "stdio", "--command", "node", "--arg", "server.js", "--env", "A=B"); code != 0 {
		t.Fatalf("long form: code %d\n%s%s", code, out, errOut)
	}
	// Mistakes are one clear line, not the usage.
	for _, args := range [][]string{
		{"mcp", "add", "both", "https://example.com/mcp", "--", "npx"},
		{"mcp", "add", "nothing"},
		{"mcp", "add", "hdr", "https://example.com/mcp", "-H", "no separator"},
	} {
		_, errOut, code := h.run(t, nil, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") > 1 || strings.Contains(errOut, "Usage") {
			t.Errorf("%v: code %d, stderr %q; want 2 and a short error", args, code, errOut)
		}
	}
}

// TestCLIHelpVersionTypos: --version, --help everywhere with an example,
// help <cmd>, and a typo answered in one line with a suggestion.
func TestCLIHelpVersionTypos(t *testing.T) {
	h := newHostCLI(t)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, errOut, code := h.run(t, nil, args...)
		if code != 0 || !strings.HasPrefix(out, "host ") || strings.Count(out, "\n") != 1 {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want one line 'host <version>'", args, code, out, errOut)
		}
	}
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"}, {"mcp", "--help"}, {"mcp", "-h"}, {"help", "mcp"},
		{"serve", "--help"}, {"chat", "-h"}, {"demo", "--help"},
		{"mcp", "add", "--help"}, {"mcp", "list", "-h"}, {"mcp", "get", "--help"}, {"mcp", "remove", "--help"},
		{"mcp", "enable", "--help"}, {"mcp", "disable", "--help"}, {"mcp", "test", "--help"}, {"mcp", "tools", "--help"},
		{"mcp", "call", "--help"}, {"mcp", "import", "--help"}, {"mcp", "login", "--help"}, {"mcp", "logout", "--help"},
		{"mcp", "approve", "--help"}, {"mcp", "deny", "--help"}, {"help", "mcp", "add"}, {"mcp", "help", "call"},
	} {
		out, errOut, code := h.run(t, nil, args...)
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "host ") || errOut != "" {
			t.Errorf("%v: code %d, stderr %q, stdout:\n%s", args, code, errOut, out)
			continue
		}
		if args[len(args)-1] != "help" && !strings.Contains(out, "Example") {
			t.Errorf("%v: no example in:\n%s", args, out)
		}
	}
	if out, _, _ := h.run(t, nil, "mcp", "add", "--help"); !strings.Contains(out, "-- npx -y") {
		t.Errorf("add --help has no example with --:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "rm", "x"}, `did you mean "remove"?`},
		{[]string{"mcp", "lsit"}, `did you mean "list"?`},
		{[]string{"mcp", "tols"}, `did you mean "tools"?`},
		{[]string{"mpc", "list"}, `did you mean "mcp"?`},
		{[]string{"serv"}, `did you mean "serve"?`},
		{[]string{"help", "mcp", "ad"}, `did you mean "add"?`},
	} {
		out, errOut, code := h.run(t, nil, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want 2 and one line with %s", tc.args, code, out, errOut, tc.want)
		}
	}
	// A bad flag is one line too.
	_, errOut, code := h.run(t, nil, "mcp", "list", "--jsn")
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--help") {
		t.Errorf("bad flag: code %d, stderr %q", code, errOut)
	}
	// No arguments: the short usage, exit 2.
	if _, errOut, code := h.run(t, nil); code != 2 || !strings.Contains(errOut, "Usage") {
		t.Errorf("no arguments: code %d, stderr %q", code, errOut)
	}
}

// TestCLIKeyringWarningOnce: without a keyring, commands say nothing about
// it; host mcp get reports the storage; the one warning comes when a token
// is actually stored in the file, after the login prompts, not before.
func TestCLIKeyringWarningOnce(t *testing.T) {
	env, err := servers.Start(context.Background(), servers.Options{TokenLifetime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	h := newHostCLI(t)
	// No keyring: the session bus is a path where none listens.
	noKeyring := []string{"MCP_HOST_TOKEN_STORE=auto", "DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(h.dir, "no-bus")}
	if _, errOut, code := h.run(t, noKeyring, "mcp", "add", "notes", env.MCPURL); code != 0 {
		t.Fatalf("add: %d %s", code, errOut)
	}
	h.run(t, noKeyring, "mcp", "add", "local", "--", "true")
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "get", "notes"}, {"mcp", "test", "notes"}, {"mcp", "get", "local"}, {"mcp", "tools"}} {
		out, errOut, _ := h.run(t, noKeyring, args...)
		if strings.Contains(strings.ToLower(errOut), "keyring") || strings.Contains(errOut, "dbus") {
			t.Errorf("%v printed a keyring warning with no token stored:\n%s", args, errOut)
		}
		if args[1] == "get" && args[2] == "notes" && (!strings.Contains(out, "tokens kept in:") || !strings.Contains(out, "keyring unavailable")) {
			t.Errorf("%v does not report the token storage:\n%s", args, out)
		}
	}

	l, authURL, text := startTerminalLogin(t, h, "notes", noKeyring)
	out := l.out
	if strings.Contains(strings.ToLower(text), "keyring") {
		t.Errorf("keyring warning before or inside the login prompt:\n%s", text)
	}
	l.finish(t, approveConsent(t, authURL))
	after := strings.TrimPrefix(out.String(), text)
	if n := strings.Count(after, "warning:"); n != 1 || !strings.Contains(after, "keyring unavailable") || !strings.Contains(after, "mcp-auth.json") {
		t.Errorf("want one warning naming the file fallback after the login, got %d:\n%s", n, after)
	}
	// The token is stored now; later commands do not repeat the warning.
	o, errOut, code := h.run(t, noKeyring, "mcp", "get", "notes")
	if code != 0 || strings.Contains(strings.ToLower(errOut), "keyring") || !strings.Contains(o, "keyring unavailable") {
		t.Errorf("get after login: code %d\n%s%s", code, o, errOut)
	}
}

// TestCLICallNotReady: calling a tool of a server that is off, or that
// does not start, fails with one line that says why.
func TestCLICallNotReady(t *testing.T) {
	h := newHostCLI(t)
	h.run(t, nil, "mcp", "add", "off", "--disabled", "--", "true")
	h.run(t, nil, "mcp", "add", "broken", "--", "false")
	for _, tc := range []struct{ id, want string }{
		{"off", "disabled"},
		{"broken", "broken"},
	} {
		out, errOut, code := h.run(t, nil, "mcp", "call", tc.id, "echo", "--yes")
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code == 0 || len(lines) != 1 || !strings.Contains(errOut, tc.want) || strings.HasSuffix(strings.TrimSpace(errOut), ":") || out != "" {
			t.Errorf("call on %s: code %d, stdout %q, stderr %q; want non-zero and one line with %q", tc.id, code, out, errOut, tc.want)
		}
	}
	if _, errOut, _ := h.run(t, nil, "mcp", "call", "off", "echo", "--yes"); !strings.Contains(errOut, "host mcp enable off") {
		t.Errorf("call on a disabled server does not say how to enable it: %q", errOut)
	}
}

// TestCLIImportSecretsAndReport: import moves secrets out into ${VAR}
// references and names the variables (never the values), keeps
// "disabled", reports every rename and skip, and --dry-run prints exactly
// what the real import then prints.
func TestCLIImportSecretsAndReport(t *testing.T) {
	h := newHostCLI(t)
	secrets := []string{"ghp_secretvalue0123456789", "sk-ant-secret-api-key-xyz", "bearer-secret-abc123", "hunter2-db-password", "argsecret-999"}
	src := `{"mcpServers":{
	  "github":{"command":"npx","args":["-y","@modelcontextprotocol/server-github","--token","` + secrets[4] + `"],"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"` + secrets[0] + `","LOG_LEVEL":"debug"}},
	  "my api":{"type":"http","url":"https://api.example.com/mcp","headers":{"Authorization":"Bearer ` + secrets[2] + `","X-Api-Key":"` + secrets[1] + `","X-Team":"blue"}},
	  "db":{"command":"db-mcp","env":{"DB_PASSWORD":"` + secrets[3] + `","DB_TOKEN":"${ALREADY_SET}"},"disabled":true},
	  "existing":{"command":"echo"},
	  "broken":{"type":"carrier-pigeon"}
	}}`
	imp := filepath.Join(h.dir, "claude.json")
	if err := os.WriteFile(imp, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := h.run(t, nil, "mcp", "add", "existing", "--", "cat"); code != 0 {
		t.Fatal(errOut)
	}
	before, _ := os.ReadFile(h.global)

	dryOut, dryErr, dryCode := h.run(t, nil, "mcp", "import", "--from", imp, "--dry-run")
	if after, _ := os.ReadFile(h.global); string(after) != string(before) {
		t.Fatal("--dry-run wrote the config")
	}
	out, errOut, code := h.run(t, nil, "mcp", "import", "--from", imp)
	// The dry run reports what the import does, each line saying so.
	done := strings.NewReplacer("would skip", "skipped", "would add", "added", "would rename", "renamed",
		"would move", "moved", "it would read", "it reads", "would be copied", "were copied",
		"The import would need these", "Set these", "would not be copied", "were not copied", "servers would get only", "servers get only")
	dryReport := strings.Replace(dryOut, "would import", "imported", 1)
	dryReport = strings.Replace(dryReport, " (dry run: nothing is written)", "", 1)
	if done.Replace(dryReport) != out || dryCode != 0 {
		t.Errorf("--dry-run printed (code %d, want 0):\n%s\nthe import printed (code %d):\n%s", dryCode, dryOut, code, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(dryOut), "\n") {
		if !strings.Contains(l, "would ") && !regexp.MustCompile(`^  [A-Z_]+  \(`).MatchString(l) {
			t.Errorf("a --dry-run line reads like the import happened: %q", l)
		}
	}
	if !strings.Contains(out, `it reads "Bearer ${MY_API_AUTHORIZATION}"`) {
		t.Errorf("the report does not quote the header as the file holds it:\n%s", out)
	}
	t.Logf("import report (code %d):\n%s%s", code, out, errOut)
	if code != 1 {
		t.Errorf("import with a broken entry: code %d, want 1", code)
	}
	for _, want := range []string{
		`renamed "my api" to my-api`,
		`skipped "existing"`, "--replace",
		`skipped "broken"`,
		"GITHUB_PERSONAL_ACCESS_TOKEN", "GITHUB_TOKEN", "MY_API_AUTHORIZATION", "MY_API_X_API_KEY", "DB_PASSWORD",
		"disabled",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	written, err := os.ReadFile(h.global)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{string(written), out, errOut, dryOut, dryErr} {
		for _, s := range secrets {
			if strings.Contains(o, s) {
				t.Errorf("secret %q found in the written config or the output:\n%s", s, o)
			}
		}
	}
	servers := readServers(t, h.global)
	gh := servers["github"]
	if env, _ := gh["env"].(map[string]any); env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "${GITHUB_PERSONAL_ACCESS_TOKEN}" || env["LOG_LEVEL"] != "debug" {
		t.Errorf("github env written as %v", gh["env"])
	}
	api := servers["my-api"]
	if hdr, _ := api["headers"].(map[string]any); hdr["Authorization"] != "Bearer ${MY_API_AUTHORIZATION}" || hdr["X-Api-Key"] != "${MY_API_X_API_KEY}" || hdr["X-Team"] != "blue" {
		t.Errorf("my-api headers written as %v", api["headers"])
	}
	db := servers["db"]
	if db["enabled"] != false {
		t.Errorf(`"disabled": true not kept: %v`, db)
	}
	if env, _ := db["env"].(map[string]any); env["DB_TOKEN"] != "${ALREADY_SET}" || env["DB_PASSWORD"] != "${DB_PASSWORD}" {
		t.Errorf("db env written as %v", db["env"])
	}
	if servers["existing"]["command"] != "cat" {
		t.Errorf("existing server replaced without --replace: %v", servers["existing"])
	}
}

// TestCLIJSONVocabulary: --json output of list, get and tools uses the UI
// protocol's field names (protocol/types.go ServerStatus, ServerDetail,
// ToolInfo), so one parser reads both.
func TestCLIJSONVocabulary(t *testing.T) {
	h := newHostCLI(t)
	if _, errOut, code := h.run(t, nil, "mcp", "add", "demo", "--", h.bin, "demo-stdio-server"); code != 0 {
		t.Fatal(errOut)
	}
	if _, errOut, code := h.run(t, nil, "mcp", "add", "remote", "http://127.0.0.1:1/mcp", "-H", "X-Key: ${K}"); code != 0 {
		t.Fatal(errOut)
	}
	noOld := func(what string, m map[string]any) {
		for _, old := range []string{"name", "target"} {
			if _, ok := m[old]; ok {
				t.Errorf("%s has the old field %q: %v", what, old, m)
			}
		}
	}

	out, errOut, code := h.run(t, nil, "mcp", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 {
		t.Fatalf("list --json: code %d\n%s%s", code, out, errOut)
	}
	for _, r := range list {
		noOld("list row", r)
		for _, k := range []string{"id", "transport", "source", "enabled"} {
			if _, ok := r[k]; !ok {
				t.Errorf("list row lacks %q: %v", k, r)
			}
		}
	}
	byID := map[any]map[string]any{list[0]["id"]: list[0], list[1]["id"]: list[1]}
	if d, r := byID["demo"], byID["remote"]; d["command"] != h.bin+" demo-stdio-server" || d["transport"] != "stdio" || r["url"] != "http://127.0.0.1:1/mcp" || r["transport"] != "http" {
		t.Errorf("list --json: demo %v, remote %v", d, r)
	}

	out, errOut, code = h.run(t, nil, "mcp", "get", "demo", "--json")
	var get map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &get) != nil {
		t.Fatalf("get --json: code %d\n%s%s", code, out, errOut)
	}
	noOld("get", get)
	if get["id"] != "demo" || get["state"] != "ready" || get["command"] != h.bin+" demo-stdio-server" || get["server_name"] == nil {
		t.Errorf("get --json: %s", out)
	}
	tl, _ := get["tool_list"].([]any)
	if len(tl) == 0 {
		t.Fatalf("get --json: no tool_list: %s", out)
	}
	for _, x := range tl {
		tool, _ := x.(map[string]any)
		noOld("get tool_list entry", tool)
		if tool["server"] != "demo" || !strings.HasPrefix(fmt.Sprint(tool["public_name"]), "mcp_demo_") || tool["tool"] == nil {
			t.Errorf("tool_list entry: %v", tool)
		}
	}

	out, errOut, code = h.run(t, nil, "mcp", "tools", "demo", "--json")
	var tools []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil || len(tools) != len(tl) {
		t.Fatalf("tools --json: code %d\n%s%s", code, out, errOut)
	}
	for _, tool := range tools {
		noOld("tools entry", tool)
		if tool["server"] != "demo" || !strings.HasPrefix(fmt.Sprint(tool["public_name"]), "mcp_demo_"+fmt.Sprint(tool["tool"])) {
			t.Errorf("tools entry: %v", tool)
		}
	}
}

// TestCLICallRememberedAnswer: host mcp call decides through the
// permission package: an "always allow" remembered for a server lets a
// call run without --yes and without a terminal, and it belongs to the
// server's identity (its command line), not to its id: the same id
// running another command is asked again (refused here, no terminal).
func TestCLICallRememberedAnswer(t *testing.T) {
	h := newHostCLI(t)
	if _, errOut, code := h.run(t, nil, "mcp", "add", "demo", "--", h.bin, "demo-stdio-server"); code != 0 {
		t.Fatal(errOut)
	}
	call := func() (string, string, int) {
		return h.run(t, nil, "mcp", "call", "demo", "word_count", "--args", `{"text":"one two three"}`)
	}
	if _, errOut, code := call(); code != 4 {
		t.Fatalf("call before any answer: code %d, want 4 (no terminal, no --yes)\n%s", code, errOut)
	}
	store, err := permission.OpenStore(filepath.Join(filepath.Dir(h.global), "permissions.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AllowServer("demo"); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := call(); code != 0 || !strings.Contains(out, "3") {
		t.Fatalf("call with a remembered allow: code %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := h.run(t, nil, "mcp", "add", "demo", "--replace", "--", h.bin, "demo-stdio-server", "--other"); code != 0 {
		t.Fatal(errOut)
	}
	if out, errOut, code := call(); code != 4 {
		t.Errorf("call after the command changed: code %d, want 4 (the answer was for the old command)\n%s%s", code, out, errOut)
	}
}
