package runtime_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// browserUI is a LoginUI that says yes and "opens" the URL by following
// its redirects over HTTP: with an auto-approving authorization server that
// lands on the loopback callback, as a browser would.
type browserUI struct {
	mu       sync.Mutex
	asked    int
	decline  bool
	prompted []runtime.LoginPrompt
}

func (b *browserUI) ConfirmLogin(_ context.Context, p runtime.LoginPrompt) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked++
	b.prompted = append(b.prompted, p)
	return !b.decline, nil
}

func (b *browserUI) OpenURL(ctx context.Context, p runtime.LoginPrompt) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func (b *browserUI) PromptRedirect(context.Context, runtime.LoginPrompt) (string, error) {
	return "", errors.New("no paste-back in this test")
}

func startDemo(t *testing.T, lifetime time.Duration) *servers.Env {
	t.Helper()
	env, err := servers.Start(context.Background(), servers.Options{AutoApprove: true, TokenLifetime: lifetime})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

func TestLoginLifecycle(t *testing.T) {
	env := startDemo(t, 3*time.Second)
	store := auth.NewMemoryStore()
	ui := &browserUI{}
	good := httpEntry("plain", mcpServer(t).URL)
	newManager := func() *runtime.Manager {
		m := runtime.NewManager(runtime.ManagerOptions{AuthStore: store, AuthStorage: "memory", LoginUI: ui, MinBackoff: time.Hour})
		t.Cleanup(func() { m.Close() })
		m.Apply([]config.ServerEntry{httpEntry("notes", env.MCPURL), good})
		return m
	}

	m := newManager()
	sts := settle(t, m)
	if st := byID(sts, "notes"); st.State != runtime.StateAuthRequired || st.Auth != "not logged in" || !strings.Contains(st.LastError, "login required") {
		t.Fatalf("before login: %+v", st)
	}
	if st := byID(sts, "plain"); st.State != runtime.StateReady {
		t.Fatalf("the other server waited for the login: %+v", st)
	}
	if ui.asked != 0 || env.Registrations() != 0 {
		t.Fatalf("connecting prompted (%d) or registered (%d)", ui.asked, env.Registrations())
	}

	if err := m.Login(context.Background(), "notes", runtime.LoginOptions{}); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "notes", runtime.StateReady, 10*time.Second)
	st, _ := m.Get("notes")
	if !st.AuthLoggedIn || !strings.HasPrefix(st.Auth, "token valid until") || st.AuthStorage != "memory" || st.Tools != 4 {
		t.Errorf("after login: %+v", st)
	}
	if ui.asked != 1 || env.Registrations() != 1 {
		t.Errorf("asked %d times, %d registrations; want 1 and 1", ui.asked, env.Registrations())
	}
	if strings.Contains(st.Auth+st.LastError, "demo-") {
		t.Errorf("status shows a client id or token: %+v", st)
	}

	t.Run("restart: no new login, no new registration", func(t *testing.T) {
		m.Close()
		m2 := newManager()
		waitState(t, m2, "notes", runtime.StateReady, 10*time.Second)
		if ui.asked != 1 || env.Registrations() != 1 {
			t.Errorf("after a restart: asked %d times, %d registrations; want 1 and 1", ui.asked, env.Registrations())
		}
		m = m2
	})

	t.Run("calls keep working past expiry", func(t *testing.T) {
		issued := env.TokensIssued()
		first, _ := m.Get("notes")
		deadline := time.Now().Add(7 * time.Second)
		for time.Now().Before(deadline) {
			res, err := m.CallTool(context.Background(), "notes", "get_weather", map[string]any{"city": "Tokyo"})
			if err != nil || res.IsError {
				t.Fatalf("call during refreshes: %v %+v", err, res)
			}
			time.Sleep(500 * time.Millisecond)
		}
		if env.TokensIssued() <= issued {
			t.Errorf("no refresh happened over two token lifetimes (%d tokens before, %d after)", issued, env.TokensIssued())
		}
		if ui.asked != 1 {
			t.Errorf("a refresh prompted the user")
		}
		// The status follows the background refreshes.
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			st, _ := m.Get("notes")
			if st.AuthValidUntil.After(first.AuthValidUntil) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("token validity in the status never moved after refreshes: %v then %v", first.AuthValidUntil, st.AuthValidUntil)
				break
			}
		}
	})

	t.Run("revoked grant: auth_required with the reason, others unaffected", func(t *testing.T) {
		env.Auth.Revoke()
		m.Reconnect("notes")
		deadline := time.Now().Add(15 * time.Second)
		for {
			st, _ := m.Get("notes")
			if st.State == runtime.StateAuthRequired {
				if st.Auth == "" || st.AuthLoggedIn && st.LastError == "" {
					t.Errorf("no reason shown: %+v", st)
				}
				t.Logf("after revocation: %s / %s", st.Auth, st.LastError)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %s after revocation: %+v", st.State, st)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if st, _ := m.Get("plain"); st.State != runtime.StateReady {
			t.Errorf("the other server: %+v", st)
		}
	})

	t.Run("declined login opens nothing", func(t *testing.T) {
		ui.mu.Lock()
		ui.decline = true
		ui.mu.Unlock()
		before := env.Auth.Requests()
		err := m.Login(context.Background(), "notes", runtime.LoginOptions{})
		if !errors.Is(err, runtime.ErrLoginDeclined) {
			t.Fatalf("declined login: %v", err)
		}
		// Discovery and metadata may be read; no authorization request.
		if got := env.Auth.Requests() - before; got > 2 {
			t.Errorf("%d requests reached the authorization server after a decline", got)
		}
	})
}

// A protected resource whose metadata names another resource: fatal, and
// no request reaches any authorization server.
func TestResourceMismatchStopsBeforeTheAuthorizationServer(t *testing.T) {
	env := startDemo(t, time.Minute)
	var prm string
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"resource":"https://elsewhere.example/mcp","authorization_servers":["`+env.IssuerURL+`"]}`)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+prm+`"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	prm = srv.URL + "/.well-known/oauth-protected-resource/mcp"
	ui := &browserUI{}
	m := runtime.NewManager(runtime.ManagerOptions{LoginUI: ui, MinBackoff: time.Hour})
	defer m.Close()
	m.Apply([]config.ServerEntry{httpEntry("evil", srv.URL+"/mcp")})
	st := settle(t, m)[0]
	if st.State != runtime.StateError || !strings.Contains(st.LastError, "another resource") {
		t.Errorf("status: %+v", st)
	}
	if err := m.Login(context.Background(), "evil", runtime.LoginOptions{}); err == nil {
		t.Error("login to a mismatched resource succeeded")
	}
	if n := env.Auth.Requests(); n != 0 || ui.asked != 0 {
		t.Errorf("%d requests reached the authorization server, %d prompts", n, ui.asked)
	}
}

func byID(sts []runtime.Status, id string) runtime.Status {
	for _, st := range sts {
		if st.ID == id {
			return st
		}
	}
	return runtime.Status{}
}

// TestDeclinedLoginRegistersNothing: the user is asked before the client
// registers with the authorization server, so a "no" leaves no client
// behind there.
func TestDeclinedLoginRegistersNothing(t *testing.T) {
	env := startDemo(t, time.Minute)
	ui := &browserUI{decline: true}
	m := runtime.NewManager(runtime.ManagerOptions{AuthStore: auth.NewMemoryStore(), LoginUI: ui, MinBackoff: time.Hour})
	t.Cleanup(func() { m.Close() })
	m.Apply([]config.ServerEntry{httpEntry("notes", env.MCPURL)})
	waitState(t, m, "notes", runtime.StateAuthRequired, 10*time.Second)
	err := m.Login(context.Background(), "notes", runtime.LoginOptions{})
	if !errors.Is(err, runtime.ErrLoginDeclined) {
		t.Fatalf("declined login: %v", err)
	}
	if ui.asked != 1 || env.Registrations() != 0 {
		t.Errorf("asked %d times, %d registrations; want 1 and 0", ui.asked, env.Registrations())
	}
}

// TestOpenBrowserRefusesOtherSchemes: whatever a server or a UI hands it,
// the system browser only gets https or loopback http.
func TestOpenBrowserRefusesOtherSchemes(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "http://example.com/authorize", "ms-settings:", "smb://host/share"} {
		err := runtime.OpenBrowser(u)
		if err == nil || strings.Contains(err.Error(), "cannot open a browser") {
			t.Errorf("OpenBrowser(%q) = %v, want a refusal of the URL itself", u, err)
		}
	}
}
