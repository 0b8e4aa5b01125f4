//go:build windows

package tokenstore

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/zalando/go-keyring"
)

// TestCredentialManagerRoundTrip stores a token set several times larger
// than one credential may hold in the real Windows Credential Manager
// (through go-keyring's wincred backend), loads it back and deletes it. It
// writes to the user's credential vault, so it runs only when
// MCP_HOST_TEST_WINCRED=1 (scripts/wine-test.sh sets it: the vault is the
// throwaway wine prefix's).
func TestCredentialManagerRoundTrip(t *testing.T) {
	if os.Getenv("MCP_HOST_TEST_WINCRED") != "1" {
		t.Skip("writes to the user's Credential Manager; set MCP_HOST_TEST_WINCRED=1 to run")
	}
	// Other tests swap go-keyring's provider for its mock, for the life of
	// the process: the real one is only sure in a process of its own.
	if os.Getenv("MCP_HOST_WINCRED_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCredentialManagerRoundTrip$", "-test.v")
		cmd.Env = append(os.Environ(), "MCP_HOST_WINCRED_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestCredentialManagerRoundTrip") {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		return
	}
	ctx := context.Background()
	s, err := Open(Options{Backend: BackendKeyring, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	key := auth.Key{ServerID: "wincred-test", URL: "https://mcp.example/mcp"}
	rec := bigRecord()
	if err := s.Save(ctx, key, rec); err != nil {
		t.Fatalf("save: %v", err)
	}
	defer s.Delete(ctx, key)
	// One item of more than the limit is refused by the backend itself:
	// the limit the store splits by is real.
	if err := keyring.Set(Service, "wincred-test-too-big", strings.Repeat("x", winCredMaxBlob+1)); err == nil {
		_ = keyring.Delete(Service, "wincred-test-too-big")
		t.Errorf("go-keyring accepted %d bytes in one credential", winCredMaxBlob+1)
	}
	got, err := s.Load(ctx, key)
	if err != nil || got == nil || got.Token.AccessToken != rec.Token.AccessToken || got.Token.RefreshToken != rec.Token.RefreshToken {
		t.Fatalf("load: %v", err)
	}
	head, err := keyring.Get(Service, Account(key))
	if err != nil || !strings.HasPrefix(head, chunkPrefix) {
		t.Errorf("head item %q, %v: want chunks", head, err)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(Service, Account(key)+"#1"); err != keyring.ErrNotFound {
		t.Errorf("part 1 after delete: %v", err)
	}
}
