package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func importedByID(t *testing.T, peer, home, cwd string) map[string]ImportedServer {
	t.Helper()
	got, _, err := ReadPeerImport(peer, home, cwd)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ImportedServer{}
	for _, s := range got {
		if s.Err != nil {
			t.Errorf("%s: %v", s.Name, s.Err)
		}
		out[s.ID] = s
	}
	return out
}

// Claude Code: local beats project beats user; the project's
// disabledMcpServers and disabledMcpjsonServers turn servers off.
func TestReadPeerImportClaudeCode(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(home, ".claude.json"), `{
	  "mcpServers": {"both": {"type": "stdio", "command": "user-cmd"}, "u": {"command": "u", "disabled": false}},
	  "projects": {`+quoteJSON(cwd)+`: {"mcpServers": {"both": {"type": "http", "url": "https://local.example/mcp"}},
	    "disabledMcpServers": ["u"], "disabledMcpjsonServers": ["p"]},
	    "/elsewhere": {"mcpServers": {"other": {"command": "x"}}}}}`)
	writeTestFile(t, filepath.Join(cwd, ".mcp.json"), `{"mcpServers": {"p": {"command": "p", "env": {"K": "${K:-d}"}}, "both": {"command": "project-cmd"}}}`)
	got := importedByID(t, "claude-code", home, cwd)
	if len(got) != 3 || got["both"].Config.URL != "https://local.example/mcp" {
		t.Fatalf("got %+v, want both (local), p and u", got)
	}
	if u := got["u"].Config; u.IsEnabled() {
		t.Error("u, in disabledMcpServers, is enabled")
	}
	if p := got["p"].Config; p.IsEnabled() {
		t.Error("p, in disabledMcpjsonServers, is enabled")
	}
	if got["p"].Config.Env["K"] != "${K:-d}" {
		t.Errorf("p env = %v", got["p"].Config.Env)
	}
}

func TestReadPeerImportCodex(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(home, ".codex", "config.toml"), `model = "o3"
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { API_KEY = "k3y", MODE = "fast" }
env_vars = ["HOME_TOKEN"]
enabled = false
startup_timeout_sec = 20
tool_timeout_sec = 1.5
enabled_tools = ["search"]
disabled_tools = ["delete"]

[mcp_servers.gh]
url = "https://api.example/mcp"
bearer_token_env_var = "GH_TOKEN"
http_headers = { "X-Region" = "eu", "X-Api-Key" = "literal" }
env_http_headers = { "X-Org" = "GH_ORG" }
scopes = ["repo", "read:org"]
`)
	got := importedByID(t, "codex", home, cwd)
	docs, gh := got["docs"].Config, got["gh"].Config
	if docs.IsEnabled() || docs.StartupTimeoutMS != 20000 || docs.RequestTimeoutMS != 1500 ||
		!reflect.DeepEqual(docs.EnvVars, []string{"HOME_TOKEN"}) || docs.Env["API_KEY"] != "${DOCS_API_KEY}" || docs.Env["MODE"] != "fast" ||
		!reflect.DeepEqual(docs.IncludeTools, []string{"search"}) || !reflect.DeepEqual(docs.ExcludeTools, []string{"delete"}) {
		t.Errorf("docs = %+v", docs)
	}
	want := map[string]string{"Authorization": "Bearer ${GH_TOKEN}", "X-Region": "eu", "X-Api-Key": "${GH_X_API_KEY}", "X-Org": "${GH_ORG}"}
	if gh.Transport != "http" || !reflect.DeepEqual(gh.Headers, want) || gh.OAuth == nil || gh.OAuth.Scope != "repo read:org" {
		t.Errorf("gh = %+v, headers %v", gh, gh.Headers)
	}
}

// Gemini: the project's settings beat the user's; url is SSE, httpUrl
// Streamable HTTP; $VAR becomes ${VAR}; trust is dropped; an OAuth client
// secret is moved out; mcp.excluded turns a server off.
func TestReadPeerImportGemini(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"mcp": {"excluded": ["off"]}, "mcpServers": {
	  "both": {"command": "user"},
	  "off": {"command": "x", "trust": true},
	  "sse": {"url": "https://sse.example/sse", "headers": {"Authorization": "Bearer $TOKEN"}},
	  "web": {"httpUrl": "https://web.example/mcp", "oauth": {"enabled": true, "clientId": "cid", "clientSecret": "cs3cret", "scopes": ["a", "b"]}}}}`)
	writeTestFile(t, filepath.Join(cwd, ".gemini", "settings.json"), `{"mcpServers": {"both": {"command": "project", "args": ["--dir", "${DIR}", "$HOME/x"], "env": {"T": "%WIN%"}, "trust": true, "excludeTools": ["a,b"]}}}`)
	got := importedByID(t, "gemini", home, cwd)
	both := got["both"].Config
	if both.Command != "project" || both.Trust || !reflect.DeepEqual(both.Args, []string{"--dir", "${DIR}", "${HOME}/x"}) || both.Env["T"] != "${WIN}" ||
		!reflect.DeepEqual(both.ExcludeTools, []string{"a", "b"}) {
		t.Errorf("both = %+v", both)
	}
	if off := got["off"].Config; off.IsEnabled() || off.Trust {
		t.Errorf("off = %+v", off)
	}
	if s := got["sse"].Config; s.Transport != "sse" || s.Headers["Authorization"] != "Bearer ${TOKEN}" {
		t.Errorf("sse = %+v", s)
	}
	w := got["web"]
	if w.Config.Transport != "http" || w.Config.OAuth == nil || w.Config.OAuth.ClientID != "cid" || w.Config.OAuth.Scope != "a b" ||
		w.Config.OAuth.ClientSecret != "${WEB_CLIENT_SECRET}" || !reflect.DeepEqual(w.Moved, []MovedSecret{{"oauth.client_secret", "WEB_CLIENT_SECRET"}}) {
		t.Errorf("web = %+v, oauth %+v, moved %v", w.Config, w.Config.OAuth, w.Moved)
	}
}

func TestReadPeerImportNoFiles(t *testing.T) {
	_, _, err := ReadPeerImport("codex", t.TempDir(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "config.toml") {
		t.Errorf("err = %v, want one naming the files looked at", err)
	}
	if PeerFiles("cursor", "/h", "/c") != nil {
		t.Error("PeerFiles knows cursor")
	}
}

func TestExpandDefault(t *testing.T) {
	lookup := func(k string) (string, bool) {
		v, ok := map[string]string{"SET": "v", "EMPTY": ""}[k]
		return v, ok
	}
	for in, want := range map[string]string{"${SET:-d}": "v", "${UNSET:-d}": "d", "${EMPTY:-d}": "d", "${UNSET:-}": "", "a${SET}b": "avb"} {
		got, err := expandString(in, lookup)
		if err != nil || got != want {
			t.Errorf("expand %q = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := expandString("${UNSET}", lookup); err == nil {
		t.Error("an unset variable without a default expanded")
	}
}

func quoteJSON(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }
