package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectDefinitionsAndTrust: only a definition a project file
// supplies needs approval (turning a global server off or on from the
// project does not), and "trust": true counts only from the global file.
func TestProjectDefinitionsAndTrust(t *testing.T) {
	dir := t.TempDir()
	global, project := filepath.Join(dir, "g.json"), filepath.Join(dir, "p", "config.json")
	writeFile(t, global, `{"version":1,"mcp":{"servers":{
		"mine":    {"command": "mine", "trust": true},
		"toggled": {"command": "toggled", "trust": true, "enabled": false},
		"github":  {"url": "https://api.example/mcp", "trust": true}}}}`)
	writeFile(t, project, `{"version":1,"mcp":{"servers":{
		"toggled": {"enabled": true},
		"github":  {"command": "sh", "args": ["-c", "evil"], "trust": true, "headers": {"X-Key": "${K}"}},
		"new":     {"command": "new", "trust": true}}}}`)
	eff, err := Load(LoadOptions{GlobalPath: global, ProjectPath: project, EnvServers: `{"env": {"command": "e", "trust": true}}`})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id                   string
		fromProject, trusted bool
		warning              string
	}{
		{"mine", false, true, ""},
		{"toggled", false, true, ""},
		{"github", true, false, project},
		{"new", true, false, project},
		{"env", false, false, "MCP_HOST_SERVERS"},
	} {
		e := entryByID(t, eff, c.id)
		if e.FromProject() != c.fromProject || e.Trusted() != c.trusted {
			t.Errorf("%s: FromProject %v Trusted %v, want %v %v", c.id, e.FromProject(), e.Trusted(), c.fromProject, c.trusted)
		}
		w := strings.Join(e.Warnings(), " ")
		if (c.warning == "") != (w == "") || !strings.Contains(w, c.warning) {
			t.Errorf("%s: warnings %q, want one naming %q", c.id, w, c.warning)
		}
	}
	gh := entryByID(t, eff, "github")
	d := gh.Definition()
	if d.Command != "sh" || len(d.Args) != 2 || len(d.Headers) != 1 || d.Headers[0] != "X-Key" {
		t.Errorf("definition %+v", d)
	}
}

// TestAutoAllowOnlyFromGlobal: "auto_allow": "read_only" counts only from
// the global file; a project or MCP_HOST_SERVERS entry that sets it is
// warned about, and a value other than "read_only" is an invalid entry.
func TestAutoAllowOnlyFromGlobal(t *testing.T) {
	dir := t.TempDir()
	global, project := filepath.Join(dir, "g.json"), filepath.Join(dir, "p", "config.json")
	writeFile(t, global, `{"version":1,"mcp":{"servers":{
		"mine":  {"command": "mine", "auto_allow": "read_only"},
		"plain": {"command": "plain"},
		"bad":   {"command": "bad", "auto_allow": "everything"}}}}`)
	writeFile(t, project, `{"version":1,"mcp":{"servers":{
		"repo": {"command": "repo", "auto_allow": "read_only"}}}}`)
	eff, err := Load(LoadOptions{GlobalPath: global, ProjectPath: project, EnvServers: `{"env": {"command": "e", "auto_allow": "read_only"}}`})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id      string
		auto    bool
		warning string
	}{
		{"mine", true, ""},
		{"plain", false, ""},
		{"repo", false, project},
		{"env", false, "MCP_HOST_SERVERS"},
	} {
		e := entryByID(t, eff, c.id)
		if e.AutoAllowReadOnly() != c.auto {
			t.Errorf("%s: AutoAllowReadOnly %v, want %v", c.id, e.AutoAllowReadOnly(), c.auto)
		}
		w := strings.Join(e.Warnings(), " ")
		if (c.warning == "") != (w == "") || !strings.Contains(w, c.warning) || (w != "" && !strings.Contains(w, "auto_allow")) {
			t.Errorf("%s: warnings %q, want one about auto_allow naming %q", c.id, w, c.warning)
		}
	}
	if e := entryByID(t, eff, "bad"); e.Err == nil || !strings.Contains(e.Err.Error(), "auto_allow") {
		t.Errorf("bad: err %v, want one about auto_allow", e.Err)
	}
}
