package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// clockJumpTTL is the access-token lifetime at the provider in
// TestOIDCClockJumps: long enough for a runtime to start on a live token,
// short enough to wait out.
const clockJumpTTL = 10 * time.Second

// setStoredExpiry rewrites the expiry of every token in a file store to
// at (and its issue to clockJumpTTL before): what a runtime reads whose
// clock jumped since the token was received. Nothing else in the file
// changes.
func setStoredExpiry(t *testing.T, path string, at time.Time) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	accounts, _ := doc["accounts"].(map[string]any)
	n := 0
	for _, a := range accounts {
		if tok, ok := a.(map[string]any)["token"].(map[string]any); ok {
			tok["expires_at"] = at.UTC().Format(time.RFC3339Nano)
			tok["issued_at"] = at.Add(-clockJumpTTL).UTC().Format(time.RFC3339Nano)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no token in the file store")
	}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOIDCClockJumps runs `host serve` against npm oidc-provider with a
// clock that jumps, played by the expiry the runtime reads from its file
// store:
//
//   - set back: the stored expiry says an hour is left, the provider's
//     JWT expired (its exp passed); the next tool call meets a 401,
//     refreshes and is sent again, and succeeds with no error and no login;
//   - jumped forward: the stored expiry passed an hour ago while the token
//     is live; the runtime refreshes before using it (no login, no 401);
//   - jumped forward with the grant revoked at the provider: the refresh
//     is refused, the server waits in auth_required saying why, the call
//     fails with that reason and the runtime keeps running.
//
// No token shows in any output.
func TestOIDCClockJumps(t *testing.T) {
	t.Parallel() // waits on processes and on the token's expiry
	rs := startOIDCResource(t)
	provider := testenv.StartOIDCProviderEnv(t, rs.URL(), clockJumpTTL)
	rs.issuer.Store(&provider.Issuer)
	dir := t.TempDir()
	config := filepath.Join(dir, "global", "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"oidc": map[string]any{"transport": "http", "url": rs.URL()},
	}}})
	store := filepath.Join(dir, "global", "mcp-auth.json")
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}
	args := []string{"--debug", "--allow", "oidc/*", "--permissions", filepath.Join(dir, "permissions.json")}
	var hosts []*servedHost
	var secrets []string
	serve := func() *servedHost {
		h := startServe(t, env, args...)
		hosts = append(hosts, h)
		if _, err := h.rt.Initialize(ctxT(t, time.Minute), &protocol.InitializeParams{
			ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"},
			Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true},
		}); err != nil {
			t.Fatal(err)
		}
		return h
	}
	stop := func(h *servedHost) {
		if _, err := h.rt.Shutdown(ctxT(t, 20*time.Second), &protocol.Empty{}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-h.exited:
			h.exited <- err // for the cleanup
		case <-time.After(20 * time.Second):
			t.Fatal("runtime did not exit after shutdown")
		}
		secrets = append(secrets, hostSecrets(t, store)...)
	}
	state := func(h *servedHost) protocol.ServerStatus { return serverState(t, h, "oidc") }
	echo := func(h *servedHost, text string) error { return oidcEcho(t, h, text) }
	prompted := func(h *servedHost) int {
		h.ui.mu.Lock()
		defer h.ui.mu.Unlock()
		return len(h.ui.confirms) + len(h.ui.urls)
	}

	h1 := serve()
	h1.ui.setAnswer(answerWith(protocol.AnswerYes))
	h1.ui.mu.Lock()
	h1.ui.openURL = func(u string) bool {
		if _, err := signInWithForms(u); err != nil {
			t.Errorf("signing in: %v", err)
			return false
		}
		return true
	}
	h1.ui.mu.Unlock()
	if _, err := h1.rt.MCPLogin(ctxT(t, time.Minute), &protocol.LoginParams{ID: "oidc"}); err != nil {
		t.Fatalf("mcp.login: %v", err)
	}
	loggedIn := time.Now() // the token dies at the provider before loggedIn+clockJumpTTL
	waitFor(t, 20*time.Second, "oidc ready", func() bool { return state(h1).State == protocol.StateReady })
	stop(h1)

	step(t, "clock set back: a 401 refreshes and the call succeeds", func(t *testing.T) {
		setStoredExpiry(t, store, time.Now().Add(time.Hour))
		h2 := serve()
		waitFor(t, 20*time.Second, "oidc ready on the live token", func() bool { return state(h2).State == protocol.StateReady })
		if left := time.Until(state(h2).Auth.ValidUntil); left < 50*time.Minute {
			t.Fatalf("the runtime believes the token has %s left, want about an hour", left)
		}
		time.Sleep(time.Until(loggedIn.Add(clockJumpTTL + 1500*time.Millisecond)))
		refreshes, rejected := provider.Stats(t).Grants["refresh_token"], rs.rejected.Load()
		if err := echo(h2, "after the clock went back"); err != nil {
			t.Fatalf("call with a token the provider expired: %v", err)
		}
		if n := provider.Stats(t).Grants["refresh_token"] - refreshes; n != 1 {
			t.Errorf("%d refreshes, want 1", n)
		}
		if rs.rejected.Load() == rejected {
			t.Error("the resource refused no token: the scenario did not happen")
		}
		if n := prompted(h2); n != 0 {
			t.Errorf("the runtime asked the user %d times", n)
		}
		stop(h2)
	})

	step(t, "clock jumped forward: refreshed before use, no login", func(t *testing.T) {
		setStoredExpiry(t, store, time.Now().Add(-time.Hour))
		refreshes, rejected := provider.Stats(t).Grants["refresh_token"], rs.rejected.Load()
		h3 := serve()
		waitFor(t, 20*time.Second, "oidc ready", func() bool { return state(h3).State == protocol.StateReady })
		if err := echo(h3, "after the clock went forward"); err != nil {
			t.Fatal(err)
		}
		if n := provider.Stats(t).Grants["refresh_token"] - refreshes; n != 1 {
			t.Errorf("%d refreshes, want 1", n)
		}
		if n := rs.rejected.Load() - rejected; n != 0 {
			t.Errorf("the resource refused %d tokens: a token the runtime called expired was sent", n)
		}
		if st := provider.Stats(t); prompted(h3) != 0 || st.Registrations != 1 || st.Grants["authorization_code"] != 1 {
			t.Errorf("asked %d times; provider %+v", prompted(h3), st)
		}
		stop(h3)
	})

	step(t, "clock jumped forward, grant revoked: auth_required with the reason", func(t *testing.T) {
		if n := provider.RevokeAll(t); n == 0 {
			t.Fatal("the provider had no grant to revoke")
		}
		setStoredExpiry(t, store, time.Now().Add(-time.Hour))
		h4 := serve()
		var s protocol.ServerStatus
		waitFor(t, 20*time.Second, "oidc auth_required", func() bool {
			s = state(h4)
			return s.State == protocol.StateAuthRequired
		})
		if s.Auth == nil || s.Auth.LoggedIn || !strings.Contains(s.Auth.Detail, "refresh failed") || !strings.Contains(s.Auth.Detail, "invalid_grant") {
			t.Errorf("auth after the refused refresh: %+v", s.Auth)
		}
		err := echo(h4, "while auth_required")
		if err == nil || !strings.Contains(err.Error(), "refresh failed") {
			t.Errorf("call while auth_required: %v", err)
		}
		if prompted(h4) != 0 {
			t.Error("a refused refresh prompted the user")
		}
		stop(h4) // it still answers: nothing crashed
	})

	step(t, "no token in any output", func(t *testing.T) {
		if len(secrets) < 4 {
			t.Fatalf("found only %d tokens to look for", len(secrets))
		}
		for i, h := range hosts {
			h.out.mu.Lock()
			proto := h.out.w.(interface{ String() string }).String()
			h.out.mu.Unlock()
			logs := h.stderr.String()
			for _, s := range secrets {
				if s != "" && (strings.Contains(proto, s) || strings.Contains(logs, s)) {
					t.Errorf("runtime %d: a token appears in its protocol output or logs", i+1)
				}
			}
		}
	})
}
