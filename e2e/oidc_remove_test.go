package e2e_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestOIDCRemoveRevokes: `host mcp remove` of a server logged in at npm
// oidc-provider deletes its stored credentials and revokes the refresh
// token at the provider (RFC 7009), so a long-lived refresh token does not
// outlive the server it was for.
func TestOIDCRemoveRevokes(t *testing.T) {
	rs, provider := startOIDC(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"oidc": map[string]any{"transport": "http", "url": rs.URL()},
	}}})
	store := filepath.Join(dir, "global", "mcp-auth.json")
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}

	h := startServe(t, env)
	ctx := ctxT(t, 2*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version,
		ClientInfo: protocol.Implementation{Name: "e2e"}, Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "oidc waiting for a login", func() bool {
		g, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "oidc"})
		return err == nil && g.Server.State == protocol.StateAuthRequired
	})
	h.ui.setAnswer(answerWith(protocol.AnswerYes))
	h.ui.mu.Lock()
	h.ui.openURL = func(u string) bool {
		if _, err := signInWithForms(u); err != nil {
			t.Errorf("signing in: %v", err)
			return false
		}
		return true
	}
	h.ui.mu.Unlock()
	if _, err := h.rt.MCPLogin(ctx, &protocol.LoginParams{ID: "oidc"}); err != nil {
		t.Fatalf("mcp.login: %v", err)
	}
	secrets := hostSecrets(t, store)
	if len(secrets) == 0 {
		t.Fatal("no tokens stored after the login")
	}
	if _, err := h.rt.Shutdown(ctx, &protocol.Empty{}); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(buildHost(t), "mcp", "remove", "oidc")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("host mcp remove: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "revoked") {
		t.Errorf("remove does not say it revoked:\n%s", out.String())
	}
	revocations := 0
	for _, p := range provider.Stats(t).Paths {
		if strings.Contains(p, "revocation") {
			revocations++
		}
	}
	if revocations != 1 {
		t.Errorf("%d revocation requests at the provider, want 1 (paths %v)", revocations, provider.Stats(t).Paths)
	}
	data, _ := os.ReadFile(store)
	for _, s := range secrets {
		if strings.Contains(string(data), s) {
			t.Errorf("the token store still holds a credential of the removed server")
		}
		if strings.Contains(out.String(), s) {
			t.Errorf("remove printed a credential")
		}
	}
}
