package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// consentPrompter asks before the login: yes or no.
type consentPrompter struct {
	testPrompter
	answer   bool
	consents atomic.Int32
	// registrationsAtConsent is what the AS had counted when asked.
	as                     *testAS
	registrationsAtConsent int
}

func (p *consentPrompter) Consent(_ context.Context, req *LoginRequest) (bool, error) {
	p.consents.Add(1)
	p.as.mu.Lock()
	p.registrationsAtConsent = p.as.registrations
	p.as.mu.Unlock()
	if req.ServerID != "srv" || req.Issuer != p.as.issuer() {
		return false, fmt.Errorf("consent request %+v", req)
	}
	return p.answer, nil
}

// The client registers only after the user agreed to the login: a declined
// login registers nothing (issue 12 item 9).
func TestRegistrationOnlyAfterConsent(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	ctx := context.Background()
	p := &consentPrompter{as: as}
	h := newHandler(t, rs, p, nil, nil)
	err := h.Login(ctx)
	if !errors.Is(err, ErrLoginDeclined) {
		t.Fatalf("declined login: %v, want ErrLoginDeclined", err)
	}
	if p.consents.Load() != 1 || as.count("/register") != 0 || p.logins.Load() != 0 {
		t.Errorf("declined: %d consents, %d registrations, %d browser logins; want 1, 0, 0", p.consents.Load(), as.count("/register"), p.logins.Load())
	}
	p.answer = true
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if p.registrationsAtConsent != 0 || as.registrations != 1 {
		t.Errorf("registered %d times before consent, %d in all", p.registrationsAtConsent, as.registrations)
	}
}

// failingPrompter plays a login that never comes back (the browser showed
// the authorization server's error page, the user closed the tab).
type failingPrompter struct {
	testPrompter
	fail atomic.Bool
}

func (p *failingPrompter) Login(ctx context.Context, req *LoginRequest) (*CallbackResult, error) {
	if p.fail.Load() {
		p.logins.Add(1)
		return nil, errors.New("login callback: no redirect within 5m0s")
	}
	return p.testPrompter.Login(ctx, req)
}

// A login that ends without a successful callback drops a registration
// that was never used, so the next login registers afresh; a registration
// that has worked before is kept.
func TestFailedLoginDropsAnUnusedRegistration(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	ctx := context.Background()
	key := Key{ServerID: "srv", URL: rs.URL()}
	p := &failingPrompter{}
	p.fail.Store(true)
	h := newHandler(t, rs, p, store, nil)
	if err := h.Login(ctx); err == nil {
		t.Fatal("login without a callback succeeded")
	}
	if rec, _ := store.Load(ctx, key); rec != nil && rec.Client != nil {
		t.Fatalf("an unused registration was kept: %+v", rec.Client)
	}
	// An error callback (the user denied at the authorization server).
	ep := &testPrompter{tamper: func(r *CallbackResult) { r.Code, r.Error = "", "access_denied" }}
	h2 := newHandler(t, rs, ep, store, nil)
	if err := h2.Login(ctx); err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Fatalf("denied login: %v", err)
	}
	if rec, _ := store.Load(ctx, key); rec != nil && rec.Client != nil {
		t.Fatalf("an unused registration was kept after a denial: %+v", rec.Client)
	}
	p.fail.Store(false)
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if as.registrations != 3 {
		t.Errorf("registrations %d, want 3 (each failed login's registration dropped)", as.registrations)
	}
	// Used once: kept through a logout and a failed login, then reused.
	if err := h.Logout(ctx, false); err != nil {
		t.Fatal(err)
	}
	p.fail.Store(true)
	_ = h.Login(ctx)
	rec, _ := store.Load(ctx, key)
	if rec == nil || rec.Client == nil || rec.Client.ClientID != "client-3" {
		t.Fatalf("a registration that worked before was dropped: %+v", rec)
	}
	p.fail.Store(false)
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if as.registrations != 3 {
		t.Errorf("registrations %d, want the working one reused", as.registrations)
	}
}

// A stored dynamic registration the authorization server no longer knows
// (invalid_client at the token endpoint) is replaced once by a fresh one
// within the same login.
func TestInvalidClientRetriesOnceWithAFreshRegistration(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	ctx := context.Background()
	p := &testPrompter{}
	h := newHandler(t, rs, p, store, nil)
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Logout(ctx, false); err != nil {
		t.Fatal(err)
	}
	as.mu.Lock()
	as.deadClients = map[string]bool{"client-1": true} // the AS was reset
	as.mu.Unlock()
	if err := h.Login(ctx); err != nil {
		t.Fatalf("login with a forgotten registration: %v", err)
	}
	if as.registrations != 2 || p.logins.Load() != 3 {
		t.Errorf("registrations %d, browser logins %d; want 2 and 3", as.registrations, p.logins.Load())
	}
	rec, _ := store.Load(ctx, Key{ServerID: "srv", URL: rs.URL()})
	if rec.Client == nil || rec.Client.ClientID != "client-2" || currentToken(t, h) == "" {
		t.Errorf("after the retry: %+v", rec)
	}
	// Once only: a fresh registration that is refused too ends the login.
	if err := h.Logout(ctx, false); err != nil {
		t.Fatal(err)
	}
	as.mu.Lock()
	as.deadClients = map[string]bool{"client-2": true, "client-3": true, "client-4": true}
	as.mu.Unlock()
	if err := h.Login(ctx); err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Fatalf("login: %v, want invalid_client", err)
	}
	if as.registrations != 3 {
		t.Errorf("registrations %d, want exactly one retry", as.registrations)
	}
}

// freePort returns a port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func listening(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err == nil {
		c.Close()
		return true
	}
	return false
}

// One callback listener per login, closed however the login ends: a failed
// registration, a browser that cannot be opened, success; repeated logins
// reuse the redirect URI and so the registration.
func TestLoopbackListenerClosedOnEveryPath(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	ctx := context.Background()
	port := freePort(t)
	openErr := atomic.Bool{}
	lb := &Loopback{Port: port, Timeout: 5 * time.Second, Open: func(ctx context.Context, req *LoginRequest) error {
		if openErr.Load() {
			return errors.New("no browser")
		}
		go func() {
			resp, err := http.Get(req.URL) // follows the redirect to the listener
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}}
	h := newHandler(t, rs, lb, nil, nil)

	as.mu.Lock()
	as.registerStatus = http.StatusInternalServerError
	as.mu.Unlock()
	if err := h.Login(ctx); err == nil {
		t.Fatal("login with a failing registration succeeded")
	}
	if listening(port) {
		t.Fatal("the callback listener stays open after a failed registration")
	}
	as.mu.Lock()
	as.registerStatus = 0
	as.mu.Unlock()

	openErr.Store(true)
	if err := h.Login(ctx); err == nil {
		t.Fatal("login without a browser succeeded")
	}
	if listening(port) {
		t.Fatal("the callback listener stays open after the browser failed")
	}
	openErr.Store(false)

	before := as.registrations // the failed login's registration was dropped
	for i := range 3 {
		if err := h.Logout(ctx, false); err != nil {
			t.Fatal(err)
		}
		if err := h.Login(ctx); err != nil {
			t.Fatalf("login %d: %v", i, err)
		}
		if listening(port) {
			t.Fatalf("the callback listener stays open after login %d", i)
		}
	}
	if n := as.registrations - before; n != 1 {
		t.Errorf("registrations %d over three good logins, want 1", n)
	}
}

// Logout can revoke the refresh token where the authorization server
// advertises a revocation endpoint (RFC 7009); the local logout happens
// whatever the revocation's outcome.
func TestLogoutRevokes(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, revocation bool) (*testAS, *testRS, *Handler, *MemoryStore) {
		as := newTestAS(t)
		if revocation {
			as.meta = map[string]any{"revocation_endpoint": as.URL() + "/revoke"}
		}
		rs := newTestRS(t, as)
		store := NewMemoryStore()
		h := newHandler(t, rs, &testPrompter{}, store, nil)
		if err := h.Login(ctx); err != nil {
			t.Fatal(err)
		}
		return as, rs, h, store
	}
	t.Run("advertised", func(t *testing.T) {
		as, rs, h, store := setup(t, true)
		revoked, err := h.LogoutWith(ctx, LogoutOptions{Revoke: true})
		if err != nil || !revoked {
			t.Fatalf("LogoutWith: %v, %v", revoked, err)
		}
		if len(as.revocations) != 1 {
			t.Fatalf("%d revocation requests", len(as.revocations))
		}
		f := as.revocations[0]
		if f.Get("token") != "refresh-1" || f.Get("token_type_hint") != "refresh_token" || f.Get("client_id") != "client-1" {
			t.Errorf("revocation form %v", f)
		}
		if rec, _ := store.Load(ctx, Key{ServerID: "srv", URL: rs.URL()}); rec != nil && rec.Token != nil {
			t.Error("token kept after logout")
		}
	})
	t.Run("record from before revocation was recorded", func(t *testing.T) {
		as, rs, h, store := setup(t, true)
		key := Key{ServerID: "srv", URL: rs.URL()}
		rec, _ := store.Load(ctx, key)
		rec.RevocationURL = ""
		_ = store.Save(ctx, key, rec)
		h2 := newHandler(t, rs, nil, store, nil)
		if revoked, err := h2.LogoutWith(ctx, LogoutOptions{Revoke: true, ForgetClient: true}); err != nil || !revoked {
			t.Fatalf("LogoutWith: %v, %v", revoked, err)
		}
		if len(as.revocations) != 1 {
			t.Errorf("%d revocation requests", len(as.revocations))
		}
		if rec, _ := store.Load(ctx, key); rec != nil {
			t.Errorf("record kept after logout with ForgetClient: %+v", rec)
		}
		_ = h
	})
	t.Run("not advertised", func(t *testing.T) {
		as, _, h, _ := setup(t, false)
		before := as.total()
		revoked, err := h.LogoutWith(ctx, LogoutOptions{Revoke: true})
		if err != nil || revoked {
			t.Fatalf("LogoutWith: %v, %v", revoked, err)
		}
		if as.count("/revoke") != 0 {
			t.Error("revoked at an endpoint nobody advertised")
		}
		_ = before
	})
	t.Run("revocation fails", func(t *testing.T) {
		as, rs, h, store := setup(t, true)
		as.mu.Lock()
		as.revokeStatus = http.StatusServiceUnavailable
		as.mu.Unlock()
		revoked, err := h.LogoutWith(ctx, LogoutOptions{Revoke: true})
		if revoked || !errors.Is(err, ErrRevocationFailed) {
			t.Fatalf("LogoutWith: %v, %v; want ErrRevocationFailed", revoked, err)
		}
		if strings.Contains(err.Error(), "refresh-1") {
			t.Errorf("error quotes the token: %v", err)
		}
		if rec, _ := store.Load(ctx, Key{ServerID: "srv", URL: rs.URL()}); rec != nil && rec.Token != nil {
			t.Error("a failed revocation kept the local token")
		}
	})
}
