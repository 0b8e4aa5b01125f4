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
	o := startOIDCServe(t, 0)
	ctx := ctxT(t, 2*time.Minute)
	waitFor(t, 30*time.Second, "oidc waiting for a login", func() bool { return o.status(t).State == protocol.StateAuthRequired })
	if _, err := o.h.rt.MCPLogin(ctx, &protocol.LoginParams{ID: "oidc"}); err != nil {
		t.Fatalf("mcp.login: %v", err)
	}
	secrets := hostSecrets(t, o.store)
	if len(secrets) == 0 {
		t.Fatal("no tokens stored after the login")
	}
	if _, err := o.h.rt.Shutdown(ctx, &protocol.Empty{}); err != nil {
		t.Fatal(err)
	}

	global := filepath.Dir(o.store)
	cmd := exec.Command(buildHost(t), "mcp", "remove", "oidc")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "MCP_HOST_CONFIG="+filepath.Join(global, "config.json"), "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("host mcp remove: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "revoked") {
		t.Errorf("remove does not say it revoked:\n%s", out.String())
	}
	revocations := 0
	paths := o.provider.Stats(t).Paths
	for _, p := range paths {
		if strings.Contains(p, "revocation") {
			revocations++
		}
	}
	if revocations != 1 {
		t.Errorf("%d revocation requests at the provider, want 1 (paths %v)", revocations, paths)
	}
	data, _ := os.ReadFile(o.store)
	for _, s := range secrets {
		if strings.Contains(string(data), s) {
			t.Errorf("the token store still holds a credential of the removed server")
		}
		if strings.Contains(out.String(), s) {
			t.Errorf("remove printed a credential")
		}
	}
}
