package runtime_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// TestLogoutIsNotUndoneByAnEarlierRead: a refresh of the auth status
// that read the credentials before a logout (here, the one after a
// reconnect's connect, held between its read and its write) does not
// write "logged in" after the logout's own refresh wrote "not logged in".
// Before refreshes ran one at a time, mcp.logout once answered logged in
// (e2e TestProtocolLogoutAnswersConnecting, under load).
func TestLogoutIsNotUndoneByAnEarlierRead(t *testing.T) {
	env := startDemo(t, time.Hour)
	var mu sync.Mutex
	var reports []runtime.Status
	m := runtime.NewManager(runtime.ManagerOptions{
		AuthStore: auth.NewMemoryStore(), AuthStorage: "memory", LoginUI: &browserUI{}, MinBackoff: time.Hour,
		OnStatus: func(st runtime.Status) {
			mu.Lock()
			reports = append(reports, st)
			mu.Unlock()
		},
	})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{httpEntry("notes", env.MCPURL)})
	settle(t, m)
	if err := m.Login(context.Background(), "notes", runtime.LoginOptions{}); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "notes", runtime.StateReady, 10*time.Second)

	// The next read (the reconnect's) is held after it read "logged in".
	held, release := make(chan struct{}), make(chan struct{})
	var reads atomic.Int32
	t.Cleanup(runtime.SetAuthStatus(func(h *auth.Handler, ctx context.Context) (auth.Status, error) {
		st, err := h.Status(ctx)
		if reads.Add(1) == 1 {
			close(held)
			<-release
		}
		return st, err
	}))
	m.Reconnect("notes")
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the reconnect never refreshed the auth status")
	}
	if st, _ := m.Get("notes"); !st.AuthLoggedIn {
		t.Fatalf("not logged in before the logout: %+v", st)
	}
	mu.Lock()
	before := len(reports)
	mu.Unlock()
	out := make(chan error, 1)
	go func() { out <- m.Logout(context.Background(), "notes", false) }()
	// Unfixed, the logout refreshes and returns while the read is held;
	// fixed, its refresh waits for the held one. Either way the held read
	// is let go: after the logout returned, or after two seconds.
	var err error
	returned := false
	select {
	case err = <-out:
		returned = true
	case <-time.After(2 * time.Second):
	}
	close(release)
	if !returned {
		err = <-out
	}
	if err != nil {
		t.Fatalf("logout: %v", err)
	}
	waitState(t, m, "notes", runtime.StateAuthRequired, 10*time.Second)

	mu.Lock()
	defer mu.Unlock()
	loggedOut := false
	for _, st := range reports[before:] {
		if st.ID != "notes" {
			continue
		}
		if loggedOut && st.AuthLoggedIn {
			t.Fatalf("a report said logged in after one said logged out: %+v", st)
		}
		loggedOut = loggedOut || !st.AuthLoggedIn
	}
	if !loggedOut {
		t.Fatal("no report said logged out after the logout")
	}
}
