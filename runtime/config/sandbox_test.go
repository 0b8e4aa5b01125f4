package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadSandbox(t *testing.T) {
	dir := t.TempDir()
	global, project := filepath.Join(dir, "g.json"), filepath.Join(dir, "p.json")
	writeFile(t, global, `{"version":1,"mcp":{"servers":{
		"off": {"command": "x", "sandbox": false},
		"strict": {"command": "x", "sandbox": "strict"},
		"grants": {"command": "x", "sandbox": {"filesystem": {"read": ["~/data"]}, "network": "none"}},
		"badnet": {"command": "x", "sandbox": {"network": "some"}},
		"badkind": {"command": "x", "sandbox": 3},
		"badfield": {"command": "x", "sandbox": {"filesytem": {}}},
		"http": {"url": "https://x.example", "sandbox": "strict"},
		"loosen": {"command": "x", "sandbox": "strict"},
		"narrow": {"command": "x", "sandbox": {"filesystem": {"read": ["~/data"]}}}}}}`)
	writeFile(t, project, `{"version":1,"mcp":{"servers":{
		"mine": {"command": "x", "sandbox": {"filesystem": {"read": ["./docs"]}}},
		"mineoff": {"command": "x", "sandbox": false},
		"loosen": {"command": "x", "sandbox": {"base": "default", "network": "all"}},
		"narrow": {"command": "x", "sandbox": {"filesystem": {"read": ["~/data/sub", "~/.ssh"]}}}}}}`)
	eff, err := Load(LoadOptions{GlobalPath: global, ProjectPath: project})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"badnet":   `sandbox.network: want "all", "none" or a list of "host:port", got "some"`,
		"badkind":  `sandbox: want "default", "strict", false or an object, got 3`,
		"badfield": `sandbox: unknown field "filesytem"`,
		"http":     `field "sandbox": not used by transport "http"`,
	} {
		e := entryByID(t, eff, id)
		if e.Err == nil || !strings.Contains(e.Err.Error(), want) || !strings.Contains(e.Err.Error(), global) || !strings.Contains(e.Err.Error(), `"`+id+`"`) {
			t.Errorf("%s: err = %v, want file, id and %q", id, e.Err, want)
		}
	}
	if e := entryByID(t, eff, "off"); e.Err != nil || !e.Config.SandboxPolicy().Off {
		t.Errorf("global false: %+v", e)
	}
	if e := entryByID(t, eff, "strict"); e.Config.SandboxPolicy().BaseName() != "strict" {
		t.Errorf("strict: %+v", e.Config.Sandbox)
	}
	// A project's own server keeps its grants (the approval shows them) ...
	if e := entryByID(t, eff, "mine"); strings.Join(e.Config.SandboxPolicy().Read, ",") != "./docs" || len(e.Warnings()) != 0 {
		t.Errorf("mine: %+v %v", e.Config.Sandbox, e.Warnings())
	}
	// ... but not a false.
	if e := entryByID(t, eff, "mineoff"); e.Config.SandboxPolicy().Off || !strings.Contains(strings.Join(e.Warnings(), ";"), "only the global config can turn the sandbox off") {
		t.Errorf("mineoff: %+v %v", e.Config.Sandbox, e.Warnings())
	}
	// A project redefining a global server only tightens its policy.
	if e := entryByID(t, eff, "loosen"); e.Config.SandboxPolicy().BaseName() != "strict" || e.Config.SandboxPolicy().Network != nil {
		t.Errorf("loosen: %+v", e.Config.Sandbox)
	}
	e := entryByID(t, eff, "narrow")
	if got := e.Config.SandboxPolicy().Read; strings.Join(got, ",") != "~/data/sub" {
		t.Errorf("narrow: read %v, want only the grant the global covers", got)
	}
	if !strings.Contains(strings.Join(e.Warnings(), ";"), `sandbox grant "~/.ssh" in a project file is ignored`) {
		t.Errorf("narrow warnings: %v", e.Warnings())
	}
}

// The policy is part of the approval digest: a project that loosens it
// asks again; a default policy leaves existing digests as they were.
func TestApprovalDigestHasSandbox(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "p.json")
	digest := func(sandbox string) (string, []string) {
		t.Helper()
		field := ""
		if sandbox != "" {
			field = `, "sandbox": ` + sandbox
		}
		writeFile(t, project, `{"version":1,"mcp":{"servers":{"s": {"command": "x"`+field+`}}}}`)
		eff, err := Load(LoadOptions{ProjectPath: project})
		if err != nil {
			t.Fatal(err)
		}
		e := entryByID(t, eff, "s")
		if e.Err != nil {
			t.Fatal(e.Err)
		}
		d := e.Definition()
		return d.Digest(), d.Summary()
	}
	none, _ := digest("")
	def, _ := digest(`"default"`)
	strict, _ := digest(`"strict"`)
	granted, lines := digest(`{"base": "strict", "filesystem": {"read": ["/data"]}}`)
	if none != def {
		t.Error("an explicit default changes the digest")
	}
	if strict == none || granted == strict {
		t.Error("a changed policy keeps the digest")
	}
	if !strings.Contains(strings.Join(lines, "\n"), `sandbox: {"base":"strict","filesystem":{"read":["/data"]}}`) {
		t.Errorf("approval lines %v lack the policy", lines)
	}
}
