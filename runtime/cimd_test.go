package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// cimdAS is a protected MCP endpoint and an authorization server that
// supports Client ID Metadata Documents and dynamic registration; it
// counts registrations.
type cimdAS struct {
	srv        *httptest.Server
	registered atomic.Int32
}

func newCIMDAS(t *testing.T) *cimdAS {
	a := &cimdAS{}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	base := a.srv.URL
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []string{"S256"},
			"response_types_supported": []string{"code"}, "client_id_metadata_document_supported": true,
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		a.registered.Add(1)
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		req["client_id"] = "dynamic-client"
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(req)
	})
	return a
}

// stopAtBrowser is a LoginUI that says yes and records the authorization
// URL instead of opening it; the login then fails, which is all these
// tests need.
type stopAtBrowser struct {
	mu   sync.Mutex
	urls []string
}

func (s *stopAtBrowser) ConfirmLogin(context.Context, runtime.LoginPrompt) (bool, error) {
	return true, nil
}

func (s *stopAtBrowser) OpenURL(_ context.Context, p runtime.LoginPrompt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.urls = append(s.urls, p.URL)
	return errors.New("no browser in this test")
}

func (s *stopAtBrowser) PromptRedirect(context.Context, runtime.LoginPrompt) (string, error) {
	return "", errors.New("no paste-back in this test")
}

// The client_id the authorization URL carries, after one login attempt of
// a manager with the given CIMD URL against a server with the given oauth
// config.
func loginClientID(t *testing.T, as *cimdAS, metadataURL string, oauth *config.OAuthConfig) string {
	t.Helper()
	ui := &stopAtBrowser{}
	m := runtime.NewManager(runtime.ManagerOptions{AuthStore: auth.NewMemoryStore(), LoginUI: ui, MinBackoff: time.Hour, ClientMetadataURL: metadataURL})
	t.Cleanup(func() { m.Close() })
	e := httpEntry("notes", as.srv.URL+"/mcp")
	e.Config.OAuth = oauth
	m.Apply([]config.ServerEntry{e})
	settle(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = m.Login(ctx, "notes", runtime.LoginOptions{Timeout: 2 * time.Second})
	ui.mu.Lock()
	defer ui.mu.Unlock()
	if len(ui.urls) == 0 {
		t.Fatal("the login never reached the browser")
	}
	u, err := url.Parse(ui.urls[0])
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("client_id")
}

// The embedding application's Client ID Metadata Document (host serve
// --client-metadata-url) is the client_id at an authorization server that
// supports such documents: nothing is registered. Without it the host
// registers; a server's own client_id wins over the application's URL.
func TestClientMetadataDocumentFirst(t *testing.T) {
	const doc = "https://app.example/oauth/client.json"
	t.Run("application URL", func(t *testing.T) {
		as := newCIMDAS(t)
		if got := loginClientID(t, as, doc, nil); got != doc || as.registered.Load() != 0 {
			t.Errorf("client_id %q after %d registrations, want %s and none", got, as.registered.Load(), doc)
		}
	})
	t.Run("none configured", func(t *testing.T) {
		as := newCIMDAS(t)
		if got := loginClientID(t, as, "", nil); got != "dynamic-client" || as.registered.Load() != 1 {
			t.Errorf("client_id %q after %d registrations, want dynamic-client and 1", got, as.registered.Load())
		}
	})
	t.Run("the server's own client wins", func(t *testing.T) {
		as := newCIMDAS(t)
		if got := loginClientID(t, as, doc, &config.OAuthConfig{ClientID: "preregistered"}); got != "preregistered" || as.registered.Load() != 0 {
			t.Errorf("client_id %q after %d registrations, want preregistered and none", got, as.registered.Load())
		}
	})
}
