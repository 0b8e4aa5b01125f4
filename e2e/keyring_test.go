package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/tokenstore"
)

// TestKeyringSecretService runs the token store against a real Secret
// Service: gnome-keyring-daemon in a private D-Bus session, its login
// keyring unlocked with a throwaway password in a throwaway HOME.
func TestKeyringSecretService(t *testing.T) {
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon", "secret-tool"} {
		_, err := exec.LookPath(tool)
		testenv.Require(t, tool+" (Debian gnome-keyring, dbus-bin, libsecret-tools)", err)
	}
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script := `echo -n throwaway | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"`
	cmd := exec.CommandContext(ctx, "dbus-run-session", "--", "sh", "-c", script, "sh", os.Args[0], "-test.run=^TestKeyringChild$", "-test.v")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+home, "XDG_DATA_HOME="+home+"/data", "MCP_HOST_KEYRING_CHILD="+home)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestKeyringChild") {
		t.Fatalf("child under dbus-run-session: %v\n%s", err, out)
	}
	t.Logf("%s", grepLines(string(out), "keyring_test.go"))

	cmd = exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKeyringFallbackChild$", "-test.v")
	cmd.Env = append(os.Environ(), "HOME="+home, "DBUS_SESSION_BUS_ADDRESS=unix:path="+home+"/no-such-bus", "MCP_HOST_KEYRING_FALLBACK="+home)
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestKeyringFallbackChild") {
		t.Fatalf("fallback child: %v\n%s", err, out)
	}
	t.Logf("%s", grepLines(string(out), "keyring_test.go"))
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "\n")
}

// TestKeyringChild is run by TestKeyringSecretService inside the D-Bus
// session.
func TestKeyringChild(t *testing.T) {
	home := os.Getenv("MCP_HOST_KEYRING_CHILD")
	if home == "" {
		t.Skip("run by TestKeyringSecretService inside a D-Bus session")
	}
	ctx := context.Background()
	s, err := tokenstore.Open(tokenstore.Options{Dir: home + "/config"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend() != tokenstore.BackendKeyring || s.Warning() != "" {
		t.Fatalf("auto chose %s (%s) with a Secret Service running", s.Backend(), s.Warning())
	}
	key := auth.Key{ServerID: "notes", URL: "https://mcp.example/mcp"}
	const token = "keyring-e2e-access-token"
	rec := &auth.Record{Issuer: "https://as.example", Token: &auth.Token{AccessToken: token, RefreshToken: "rt"}, Scopes: []string{"notes"}}
	if err := s.Save(ctx, key, rec); err != nil {
		t.Fatal(err)
	}
	// Another program sees the item under the documented service and account.
	out, err := exec.Command("secret-tool", "lookup", "service", tokenstore.Service, "username", tokenstore.Account(key)).Output()
	if err != nil || !strings.Contains(string(out), token) {
		t.Fatalf("secret-tool lookup service %s username %s: %v (%d bytes)", tokenstore.Service, tokenstore.Account(key), err, len(out))
	}
	// A fresh store (a new process would do the same) reads it back.
	s2, _ := tokenstore.Open(tokenstore.Options{Backend: tokenstore.BackendKeyring, Dir: home + "/config"})
	got, err := s2.Load(ctx, key)
	if err != nil || got == nil || got.Token.AccessToken != token {
		t.Fatalf("load: %+v %v", got, err)
	}
	if _, err := os.Stat(home + "/config/" + tokenstore.FileName); !os.IsNotExist(err) {
		t.Errorf("the keyring backend wrote the token file")
	}
	if err := s2.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if got, _ := s2.Load(ctx, key); got != nil {
		t.Error("deleted record still in the keyring")
	}
	t.Logf("keyring_test.go: saved, read by secret-tool and a fresh store, deleted (account %s)", tokenstore.Account(key))

}

// TestKeyringFallbackChild is run by TestKeyringSecretService with a bus
// address that leads nowhere: auto must fall back to the file and say so.
func TestKeyringFallbackChild(t *testing.T) {
	home := os.Getenv("MCP_HOST_KEYRING_FALLBACK")
	if home == "" {
		t.Skip("run by TestKeyringSecretService without a D-Bus session")
	}
	s, err := tokenstore.Open(tokenstore.Options{Dir: home + "/config", Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend() != tokenstore.BackendFile || !strings.Contains(s.Warning(), "keyring unavailable") || !strings.Contains(s.Describe(), tokenstore.FileName) {
		t.Fatalf("without a bus: backend %s, warning %q", s.Backend(), s.Warning())
	}
	t.Logf("keyring_test.go: without a bus: %s", s.Warning())
}
