//go:build windows

package tokenstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/tokenstore"
)

// TestPathsUnderAppData: on Windows the global config and the token file
// fallback (next to it, as cmd/host's tokenStoreDir puts it) live under
// %AppData%\mcp-host.
func TestPathsUnderAppData(t *testing.T) {
	appData := t.TempDir()
	t.Setenv("APPDATA", appData)
	t.Setenv("MCP_HOST_CONFIG", "")
	global, _ := config.DefaultPaths(`C:\work`)
	if want := filepath.Join(appData, "mcp-host", "config.json"); !strings.EqualFold(global, want) {
		t.Fatalf("global config %s, want %s", global, want)
	}
	s, err := tokenstore.Open(tokenstore.Options{Backend: tokenstore.BackendFile, Dir: filepath.Dir(global)})
	if err != nil {
		t.Fatal(err)
	}
	key := auth.Key{ServerID: "x", URL: "https://x.example/mcp"}
	if err := s.Save(context.Background(), key, &auth.Record{Token: &auth.Token{AccessToken: "at"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(appData, "mcp-host", tokenstore.FileName)); err != nil {
		t.Errorf("token file not under %%AppData%%\\mcp-host: %v", err)
	}
}
