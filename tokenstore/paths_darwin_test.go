//go:build darwin

package tokenstore_test

import (
	"path/filepath"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/config"
)

// TestPathsUnderApplicationSupport: on macOS the global config (and the
// token file fallback next to it) live under ~/Library/Application
// Support/mcp-host.
func TestPathsUnderApplicationSupport(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("MCP_HOST_CONFIG", "")
	global, _ := config.DefaultPaths("/work")
	if want := filepath.Join(home, "Library", "Application Support", "mcp-host", "config.json"); global != want {
		t.Errorf("global config %s, want %s", global, want)
	}
}
