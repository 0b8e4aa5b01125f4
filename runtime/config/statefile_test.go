package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/internal/statefile"
)

// A configuration file over MaxFileBytes is a broken file, named, read no
// further; the other layers still load; editing it is refused alike.
func TestConfigFileIsBoundedOnRead(t *testing.T) {
	dir := t.TempDir()
	global, project := filepath.Join(dir, "global.json"), filepath.Join(dir, "project.json")
	os.WriteFile(global, []byte(`{"version":1,"mcp":{"servers":{}},"pad":"`+strings.Repeat("x", MaxFileBytes)+`"}`), 0o600)
	os.WriteFile(project, []byte(`{"version":1,"mcp":{"servers":{"p":{"transport":"http","url":"http://127.0.0.1:1/mcp"}}}}`), 0o600)
	eff, err := Load(LoadOptions{GlobalPath: global, ProjectPath: project})
	if err != nil {
		t.Fatal(err)
	}
	if e := eff.Broken[global]; !errors.Is(e, statefile.ErrTooLarge) || !strings.Contains(e.Error(), "config "+global) {
		t.Errorf("broken = %v", eff.Broken)
	}
	if len(eff.Servers) != 1 || eff.Servers[0].ID != "p" {
		t.Errorf("servers = %+v", eff.Servers)
	}
	if err := EditFile(global, func(*File) error { return nil }); !errors.Is(err, statefile.ErrTooLarge) {
		t.Errorf("edit: %v", err)
	}
}
