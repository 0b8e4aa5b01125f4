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
