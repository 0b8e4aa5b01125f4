package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// oidcServe is `host serve` with one server, "oidc", behind npm
// oidc-provider, and a UI that says yes to logins and signs in on the
// provider's pages.
type oidcServe struct {
	rs       *oidcResource
	provider *testenv.OIDCProvider
	h        *servedHost
	store    string
}

// startOIDCServe starts it all; prmDelay delays the resource's metadata
// answers.
func startOIDCServe(t *testing.T, prmDelay time.Duration) *oidcServe {
	t.Helper()
	rs, provider := startOIDC(t)
	rs.prmDelay.Store(int64(prmDelay))
	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"oidc": map[string]any{"transport": "http", "url": rs.URL()},
	}}})
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}
	h := startServe(t, env)
	if _, err := h.rt.Initialize(ctxT(t, time.Minute), &protocol.InitializeParams{ProtocolVersion: protocol.Version,
		ClientInfo: protocol.Implementation{Name: "e2e"}, Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true}}); err != nil {
		t.Fatal(err)
	}
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
	return &oidcServe{rs: rs, provider: provider, h: h, store: filepath.Join(dir, "global", "mcp-auth.json")}
}

func (o *oidcServe) status(t *testing.T) protocol.ServerStatus {
	t.Helper()
	g, err := o.h.rt.MCPGet(ctxT(t, 10*time.Second), &protocol.ServerParams{ID: "oidc"})
	if err != nil {
		t.Fatalf("mcp.get oidc: %v", err)
	}
	return g.Server.ServerStatus
}

// TestOIDCLoginRightAfterStart: a UI that calls mcp.login at once, before
// the server's first connection attempt has met its 401, gets the login,
// not "login required: not logged in" (issue 12 item 9).
func TestOIDCLoginRightAfterStart(t *testing.T) {
	for i := range 2 {
		// The first connection's discovery is still running when the
		// login comes.
		o := startOIDCServe(t, time.Duration(i)*time.Second)
		res, err := o.h.rt.MCPLogin(ctxT(t, time.Minute), &protocol.LoginParams{ID: "oidc"})
		if err != nil {
			t.Fatalf("round %d: mcp.login right after start: %v", i, err)
		}
		if res.Server.Auth == nil || !res.Server.Auth.LoggedIn {
			t.Fatalf("round %d: after login: %+v", i, res.Server)
		}
		waitFor(t, 20*time.Second, "oidc ready", func() bool { return o.status(t).State == protocol.StateReady })
		if st := o.provider.Stats(t); st.Registrations != 1 || st.Grants["authorization_code"] != 1 {
			t.Errorf("round %d: provider %+v", i, st)
		}
		if s := o.status(t); s.Auth == nil || !strings.Contains(s.Auth.Detail, "token valid until") {
			t.Errorf("round %d: auth %+v", i, s.Auth)
		}
	}
}
