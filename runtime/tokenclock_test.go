package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// clockedNotes is the demo's protected server "notes" behind a manager
// whose tokens live in a memory store the test can edit between runs.
type clockedNotes struct {
	env   *servers.Env
	store *auth.MemoryStore
	ui    *browserUI
}

func startClockedNotes(t *testing.T) *clockedNotes {
	return &clockedNotes{env: startDemo(t, time.Hour), store: auth.NewMemoryStore(), ui: &browserUI{}}
}

func (c *clockedNotes) manager(t *testing.T) *runtime.Manager {
	m := runtime.NewManager(runtime.ManagerOptions{AuthStore: c.store, AuthStorage: "memory", LoginUI: c.ui, MinBackoff: time.Hour})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{httpEntry("notes", c.env.MCPURL)})
	return m
}

// storedExpiry moves the stored token's expiry to now+left (and its
// issue an hour before): what a host reads whose clock jumped since the
// token was received.
func (c *clockedNotes) storedExpiry(t *testing.T, left time.Duration) {
	t.Helper()
	ctx := context.Background()
	key := auth.Key{ServerID: "notes", URL: c.env.MCPURL}
	rec, err := c.store.Load(ctx, key)
	if err != nil || rec == nil || rec.Token == nil {
		t.Fatalf("no stored token: %+v %v", rec, err)
	}
	rec.Token.ExpiresAt = time.Now().Add(left).Round(0)
	rec.Token.IssuedAt = rec.Token.ExpiresAt.Add(-time.Hour)
	if err := c.store.Save(ctx, key, rec); err != nil {
		t.Fatal(err)
	}
}

func weatherCall(m *runtime.Manager) error {
	res, err := m.CallTool(context.Background(), "notes", "get_weather", map[string]any{"city": "Paris"})
	if err == nil && res.IsError {
		err = errors.New("the tool answered an error")
	}
	return err
}

// TestTokenDeadAtTheServerRefreshedOn401: the host's clock says the token
// has most of an hour left, the server says it expired (a clock set back,
// or a suspend the monotonic clock did not count). The next tool call
// gets a 401, refreshes, is sent again and succeeds, with no error for
// the caller and no login.
func TestTokenDeadAtTheServerRefreshedOn401(t *testing.T) {
	c := startClockedNotes(t)
	m := c.manager(t)
	settle(t, m)
	if err := m.Login(context.Background(), "notes", runtime.LoginOptions{}); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, m, "notes", runtime.StateReady, 10*time.Second)
	if left := time.Until(st.AuthValidUntil); left < 50*time.Minute {
		t.Fatalf("token valid for %s, want about an hour", left)
	}
	issued := c.env.TokensIssued()
	c.env.Auth.ExpireAccessTokens()
	if err := weatherCall(m); err != nil {
		t.Fatalf("call with a token the server expired: %v", err)
	}
	if n := c.env.TokensIssued() - issued; n != 1 {
		t.Errorf("%d tokens issued for the call, want one refresh", n)
	}
	if c.ui.asked != 1 || c.env.Registrations() != 1 {
		t.Errorf("asked %d times, %d registrations; want 1 and 1", c.ui.asked, c.env.Registrations())
	}
	if st, _ := m.Get("notes"); st.State != runtime.StateReady {
		t.Errorf("state %s (%s)", st.State, st.LastError)
	}
}

// TestStoredExpiryInThePast: the clock jumped forward, so the stored
// expiry says the token died an hour ago while the server still accepts
// it. The host refreshes (no login, no registration) and works. When the
// refresh token is refused as well, the server waits in auth_required
// with a reason that says so, a call answers that a login is needed, and
// nobody is prompted.
func TestStoredExpiryInThePast(t *testing.T) {
	c := startClockedNotes(t)
	m := c.manager(t)
	settle(t, m)
	if err := m.Login(context.Background(), "notes", runtime.LoginOptions{}); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "notes", runtime.StateReady, 10*time.Second)
	m.Close()

	c.storedExpiry(t, -time.Hour)
	issued := c.env.TokensIssued()
	m2 := c.manager(t)
	waitState(t, m2, "notes", runtime.StateReady, 10*time.Second)
	if err := weatherCall(m2); err != nil {
		t.Fatalf("call after the clock jumped forward: %v", err)
	}
	if n := c.env.TokensIssued() - issued; n != 1 {
		t.Errorf("%d tokens issued, want one refresh", n)
	}
	if c.ui.asked != 1 || c.env.Registrations() != 1 {
		t.Errorf("asked %d times, %d registrations; want 1 and 1", c.ui.asked, c.env.Registrations())
	}
	m2.Close()

	c.env.Auth.Revoke() // the refresh token is refused too
	c.storedExpiry(t, -time.Hour)
	m3 := c.manager(t)
	st := waitState(t, m3, "notes", runtime.StateAuthRequired, 10*time.Second)
	if !strings.Contains(st.LastError, "refresh failed") || !strings.Contains(st.LastError, "invalid_grant") || st.AuthLoggedIn {
		t.Errorf("auth_required without the reason: last error %q, auth %q, logged in %v", st.LastError, st.Auth, st.AuthLoggedIn)
	}
	if err := weatherCall(m3); err == nil || !strings.Contains(err.Error(), "auth_required") || !strings.Contains(err.Error(), "refresh failed") {
		t.Errorf("call while auth_required: %v", err)
	}
	if c.ui.asked != 1 {
		t.Errorf("a refused refresh prompted the user")
	}
}
