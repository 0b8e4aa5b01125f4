package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func entryByID(t *testing.T, eff *Effective, id string) ServerEntry {
	t.Helper()
	for _, e := range eff.Servers {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no server %q in %+v", id, eff.Servers)
	return ServerEntry{}
}

func TestLoadLayers(t *testing.T) {
	dir := t.TempDir()
	global, project := filepath.Join(dir, "g.json"), filepath.Join(dir, "p", "config.json")
	writeFile(t, global, `{"version":1,"mcp":{"servers":{
		"a": {"url": "https://a.example/mcp"},
		"b": {"command": "b-server"},
		"c": {"url": "https://c.example/mcp"}}}}`)
	writeFile(t, project, `{"version":1,"mcp":{"servers":{
		"a": {"enabled": false},
		"c": {"url": "https://c2.example/mcp"}}}}`)
	eff, err := Load(LoadOptions{GlobalPath: global, ProjectPath: project, EnvServers: `{"d": {"command": "d"}}`})
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Errors) != 0 {
		t.Fatalf("errors: %v", eff.Errors)
	}
	a := entryByID(t, eff, "a")
	if a.Config.IsEnabled() || a.Config.URL != "https://a.example/mcp" || a.Source != SourceProject {
		t.Errorf("a = %+v: want the global definition turned off by the project", a)
	}
	if b := entryByID(t, eff, "b"); b.Config.TransportName() != "stdio" || b.Source != SourceGlobal {
		t.Errorf("b = %+v", b)
	}
	if c := entryByID(t, eff, "c"); c.Config.URL != "https://c2.example/mcp" || c.Path != project {
		t.Errorf("c = %+v: the project should win", c)
	}
	if d := entryByID(t, eff, "d"); d.Source != SourceEnv || d.Path != "" {
		t.Errorf("d = %+v", d)
	}
}

func TestLoadBadEntriesAndFiles(t *testing.T) {
	dir := t.TempDir()
	global, project := filepath.Join(dir, "g.json"), filepath.Join(dir, "p.json")
	writeFile(t, global, `{"version":1,"mcp":{"servers":{
		"ok": {"url": "https://ok.example/mcp"},
		"typo": {"url": "https://x.example", "heders": {}},
		"type": {"url": "https://x.example", "request_timeout_ms": "soon"},
		"task": {"url": "https://x.example", "task_timeout_ms": -1},
		"nourl": {"transport": "http"},
		"relative": {"url": "/mcp"},
		"bad id!": {"command": "x"},
		"grant": {"url": "https://x.example", "oauth": {"grant": "magic"}},
		"ent": {"url": "https://x.example", "oauth": {"grant": "enterprise", "client_id": "c", "id_token_file": "/id.jwt"}},
		"wif": {"url": "https://x.example", "oauth": {"grant": "jwt_bearer"}},
		"passes": {"command": "x", "env_vars": ["GITHUB_TOKEN", "ProgramFiles(x86)", "LC_ALL"]},
		"envval": {"command": "x", "env_vars": ["GITHUB_TOKEN=ghp_x"]},
		"envexp": {"command": "x", "env_vars": ["${TOKEN}"]},
		"envsp": {"command": "x", "env_vars": ["MY VAR"]},
		"envnone": {"command": "x", "env_vars": [""]},
		"envhttp": {"url": "https://x.example", "env_vars": ["HOME"]}}}}`)
	writeFile(t, project, "{\n  \"version\": 1,\n  \"mcp\": {\n    \"servers\": {,}\n  }\n}")
	eff, err := Load(LoadOptions{GlobalPath: global, ProjectPath: project})
	if err != nil {
		t.Fatal(err)
	}
	if len(eff.Errors) != 1 || !strings.Contains(eff.Errors[0].Error(), project+":4:") {
		t.Errorf("file errors = %v, want the project file with line 4", eff.Errors)
	}
	for _, id := range []string{"ok", "passes"} {
		if e := entryByID(t, eff, id); e.Err != nil {
			t.Errorf("%s: %v", id, e.Err)
		}
	}
	for id, want := range map[string]string{
		"typo":     `field "heders": unknown field`,
		"type":     `field "request_timeout_ms"`,
		"task":     `field "task_timeout_ms": must not be negative`,
		"nourl":    `field "url": required`,
		"relative": `field "url": must be an absolute`,
		"bad id!":  "invalid server id",
		"grant":    `field "oauth.grant"`,
		"ent":      `field "oauth.idp_issuer": is required with oauth.grant "enterprise" (or set oauth.idp_token_url)`,
		"wif":      `field "oauth.assertion_file": is required with oauth.grant "jwt_bearer" (or set oauth.assertion_env)`,
		"envval":   `field "env_vars": invalid variable name "GITHUB_TOKEN" followed by '='`,
		"envexp":   `field "env_vars": invalid variable name "${TOKEN}"`,
		"envsp":    `field "env_vars": invalid variable name "MY VAR"`,
		"envnone":  `field "env_vars": empty variable name`,
		"envhttp":  `field "env_vars": not used by transport "http"`,
	} {
		e := entryByID(t, eff, id)
		if e.Err == nil || !strings.Contains(e.Err.Error(), want) || !strings.Contains(e.Err.Error(), global) || !strings.Contains(e.Err.Error(), `"`+id+`"`) {
			t.Errorf("%s: err = %v, want file, id and %q", id, e.Err, want)
		}
		if e.Err != nil && strings.Contains(e.Err.Error(), "ghp_x") {
			t.Errorf("%s: the error shows the value written into env_vars: %v", id, e.Err)
		}
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "DIR": "/data"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c := ServerConfig{
		URL:     "https://x.example/${DIR}",
		Headers: map[string]string{"Authorization": "Bearer ${TOKEN}", "Literal": "$${TOKEN}"},
		Args:    []string{"--root", "${DIR}"},
		Env:     map[string]string{"K": "${TOKEN}"},
	}
	got, err := c.Expand(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != "https://x.example//data" || got.Headers["Authorization"] != "Bearer t0k" || got.Headers["Literal"] != "${TOKEN}" || got.Args[1] != "/data" || got.Env["K"] != "t0k" {
		t.Errorf("expanded = %+v", got)
	}
	if c.Headers["Authorization"] != "Bearer ${TOKEN}" {
		t.Error("Expand changed its receiver's map")
	}
	_, err = ServerConfig{Args: []string{"${NOPE}"}}.Expand(lookup)
	if err == nil || !strings.Contains(err.Error(), "NOPE") || !strings.Contains(err.Error(), "args[0]") {
		t.Errorf("unset variable: err = %v", err)
	}
}

func TestToolAllowed(t *testing.T) {
	c := ServerConfig{IncludeTools: []string{"read_*", "list"}, ExcludeTools: []string{"read_secret*"}}
	for name, want := range map[string]bool{"read_file": true, "list": true, "write_file": false, "read_secrets": false} {
		if got := c.ToolAllowed(name); got != want {
			t.Errorf("ToolAllowed(%q) = %v", name, got)
		}
	}
}

func TestEditFileKeepsUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "config.json")
	writeFile(t, path, `{"version":1,"theme":"dark","mcp":{"extra":true,"servers":{"keep":{"url":"https://k.example","x-note":"mine"}}}}`)
	err := EditFile(path, func(f *File) error {
		f.MCP.Servers["new"] = &ServerConfig{Command: "srv"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	mcp := doc["mcp"].(map[string]any)
	servers := mcp["servers"].(map[string]any)
	if doc["theme"] != "dark" || mcp["extra"] != true || servers["keep"].(map[string]any)["x-note"] != "mine" || servers["new"] == nil {
		t.Errorf("after edit: %s", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", st.Mode().Perm())
	}
}

func TestParseImport(t *testing.T) {
	claude := `{"mcpServers":{"fs":{"command":"npx","args":["-y","server"],"env":{"A":"1"}},"My Server":{"url":"https://m.example/mcp","type":"sse"}}}`
	got, err := ParseImport([]byte(claude), "claude-desktop")
	if err != nil || len(got) != 2 {
		t.Fatalf("got %+v, %v", got, err)
	}
	if got[0].ID != "My-Server" || got[0].Config.Transport != "sse" || got[0].Err != nil {
		t.Errorf("My Server = %+v", got[0])
	}
	if got[1].ID != "fs" || got[1].Config.Transport != "stdio" || got[1].Config.Env["A"] != "1" {
		t.Errorf("fs = %+v", got[1])
	}
	vscode := `{"servers":{"gh":{"type":"http","url":"https://gh.example/mcp","headers":{"Authorization":"Bearer ${input:token}"}}}}`
	got, err = ParseImport([]byte(vscode), "vscode")
	if err != nil || len(got) != 1 || got[0].Err == nil || !strings.Contains(got[0].Err.Error(), "input variable") {
		t.Errorf("vscode input variable not reported: %+v %v", got, err)
	}
	if _, err := ParseImport([]byte(`{"other":1}`), "file"); err == nil {
		t.Error("a file without servers was accepted")
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"mcp":{"servers":{"a":{"url":"https://a.example"}}}}`))
	f.Add([]byte(`{"mcp":{"servers":{"a":{"enabled":false}}}}`))
	f.Add([]byte("{\n"))
	f.Add([]byte(`{"version":1,"mcp":{"servers":{"a":{"command":"x","args":` + strings.Repeat("[", 20000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "c.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		eff, err := Load(LoadOptions{GlobalPath: path, EnvServers: string(data)})
		if err != nil || eff == nil {
			t.Fatalf("Load failed outright: %v", err)
		}
		if e := eff.Broken[path]; e != nil && !strings.Contains(e.Error(), path) {
			t.Fatalf("the file's error does not name it: %v", e)
		}
	})
}

// TestRegistrySourceLoads: an entry installed from a registry records its
// origin in "registry"; the strict decoder takes it, and an incomplete one
// is an error naming the field.
func TestRegistrySourceLoads(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "config.json")
	writeFile(t, global, `{"version":1,"mcp":{"servers":{
		"ok":  {"command":"npx","args":["-y","pkg@1.0.0"],"registry":{"url":"https://r.example","name":"io.github.a/b","version":"1.0.0","package":"npm"}},
		"bad": {"command":"npx","registry":{"name":"io.github.a/b"}}}}}`)
	eff, err := Load(LoadOptions{GlobalPath: global})
	if err != nil {
		t.Fatal(err)
	}
	ok := entryByID(t, eff, "ok")
	if ok.Err != nil || ok.Config.Registry == nil || ok.Config.Registry.Version != "1.0.0" || ok.Config.Registry.Package != "npm" {
		t.Fatalf("ok: err %v, registry %+v", ok.Err, ok.Config.Registry)
	}
	bad := entryByID(t, eff, "bad")
	if bad.Err == nil || !strings.Contains(bad.Err.Error(), `"registry"`) {
		t.Fatalf("bad: want an error naming registry, got %v", bad.Err)
	}
}
