package auth

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// forgetAfterLogout logs in with h, logs out keeping the registration,
// and makes as forget client-1, as a restart of the authorization server
// does.
func forgetAfterLogout(t *testing.T, as *testAS, h *Handler) {
	t.Helper()
	ctx := context.Background()
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Logout(ctx, false); err != nil {
		t.Fatal(err)
	}
	as.mu.Lock()
	as.deadClients = map[string]bool{"client-1": true}
	as.mu.Unlock()
}

// A stored registration the authorization server forgot is found out
// before the browser opens (issue 12 item 9): by reading it (RFC 7592)
// where registration issued a client configuration endpoint, else by the
// authorization endpoint's error page. The login registers once more and
// completes with a single browser round.
func TestForgottenRegistrationFoundBeforeTheBrowser(t *testing.T) {
	for _, tc := range []struct {
		name       string
		issueRAT   bool
		refuseDead string
		wantReads  int
	}{
		{"registration read", true, "page", 1},
		{"registration read, authorization endpoint silent", true, "", 1},
		{"error page", false, "page", 0},
		{"redirect naming invalid_client", false, "redirect", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newTestAS(t)
			as.issueRAT, as.refuseDead = tc.issueRAT, tc.refuseDead
			rs := newTestRS(t, as)
			store := NewMemoryStore()
			p := &testPrompter{}
			h := newHandler(t, rs, p, store, nil)
			forgetAfterLogout(t, as, h)
			if err := h.Login(context.Background()); err != nil {
				t.Fatalf("login with a forgotten registration: %v", err)
			}
			if as.registrations != 2 || p.logins.Load() != 2 {
				t.Errorf("registrations %d, browser logins %d; want 2 and 2 (no round with the forgotten client)", as.registrations, p.logins.Load())
			}
			for _, q := range as.authorizes[1:] {
				if q.Get("client_id") == "client-1" && q.Get("state") == "" {
					t.Errorf("authorization check without state: %v", q)
				}
			}
			if len(as.reads) != tc.wantReads {
				t.Errorf("%d registration reads, want %d", len(as.reads), tc.wantReads)
			}
			if tc.wantReads > 0 && len(as.reads) > 0 && as.reads[0] != "Bearer rat-client-1" {
				t.Errorf("read with %q", as.reads[0])
			}
			rec, _ := store.Load(context.Background(), Key{ServerID: "srv", URL: rs.URL()})
			if rec == nil || rec.Client == nil || rec.Client.ClientID != "client-2" || rec.Token == nil {
				t.Fatalf("after the login: %+v", rec)
			}
			if tc.issueRAT && (rec.Client.RegistrationClientURI != as.URL()+"/reg/client-2" || rec.Client.RegistrationAccessToken != "rat-client-2") {
				t.Errorf("client configuration not stored: %+v", rec.Client)
			}
		})
	}
}

// A registration the server still knows is reused: the read says so, or
// (without RFC 7592, or when the read says nothing) the authorization
// endpoint shows no error page. A rotated registration access token is
// stored.
func TestKnownRegistrationReused(t *testing.T) {
	for _, tc := range []struct {
		name       string
		issueRAT   bool
		readStatus int
		rotate     bool
	}{
		{"read", true, 0, false},
		{"read rotating the token", true, 0, true},
		{"read failing with 503", true, http.StatusServiceUnavailable, false},
		{"read forbidden", true, http.StatusForbidden, false},
		{"no read", false, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newTestAS(t)
			as.issueRAT, as.readStatus, as.rotateRAT, as.refuseDead = tc.issueRAT, tc.readStatus, tc.rotate, "page"
			rs := newTestRS(t, as)
			store := NewMemoryStore()
			p := &testPrompter{}
			h := newHandler(t, rs, p, store, nil)
			ctx := context.Background()
			for i := range 3 {
				if err := h.Login(ctx); err != nil {
					t.Fatalf("login %d: %v", i, err)
				}
				if err := h.Logout(ctx, false); err != nil {
					t.Fatal(err)
				}
			}
			if as.registrations != 1 || p.logins.Load() != 3 {
				t.Errorf("registrations %d, browser logins %d; want 1 and 3", as.registrations, p.logins.Load())
			}
			rec, _ := store.Load(ctx, Key{ServerID: "srv", URL: rs.URL()})
			if tc.rotate && (rec == nil || rec.Client == nil || rec.Client.RegistrationAccessToken != "rat-client-1-next-next") {
				t.Errorf("rotated registration access token not kept: %+v", rec)
			}
		})
	}
}

// The redirect naming invalid_client, when nothing before the browser
// found the registration forgotten, restarts the login once with a fresh
// registration.
func TestCallbackInvalidClientRegistersAgainOnce(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	refuse := 1
	p := &testPrompter{tamper: func(r *CallbackResult) {
		if refuse > 0 {
			refuse--
			r.Code, r.Error = "", "invalid_client"
		}
	}}
	h := newHandler(t, rs, p, nil, nil)
	refuse = 0
	ctx := context.Background()
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Logout(ctx, false); err != nil {
		t.Fatal(err)
	}
	refuse = 1
	if err := h.Login(ctx); err != nil {
		t.Fatalf("login: %v", err)
	}
	if as.registrations != 2 || p.logins.Load() != 3 {
		t.Errorf("registrations %d, browser logins %d; want 2 and 3", as.registrations, p.logins.Load())
	}
	// Once: a fresh registration refused too ends the login.
	if err := h.Logout(ctx, false); err != nil {
		t.Fatal(err)
	}
	refuse = 2
	if err := h.Login(ctx); err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Fatalf("login: %v, want invalid_client", err)
	}
	if as.registrations != 3 {
		t.Errorf("registrations %d, want exactly one more", as.registrations)
	}
}

// A client configuration endpoint at another origin than the registration
// endpoint is not stored: the registration access token goes nowhere else.
func TestRegistrationClientURIElsewhereIgnored(t *testing.T) {
	as := newTestAS(t)
	other := newTestAS(t)
	as.issueRAT, as.ratOrigin = true, other.URL()
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	h := newHandler(t, rs, &testPrompter{}, store, nil)
	forgetAfterLogout(t, as, h)
	rec, _ := store.Load(context.Background(), Key{ServerID: "srv", URL: rs.URL()})
	if rec == nil || rec.Client == nil || rec.Client.RegistrationClientURI != "" || rec.Client.RegistrationAccessToken != "" {
		t.Fatalf("stored: %+v", rec)
	}
	as.refuseDead = "page"
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	if other.total() != 0 || as.registrations != 2 {
		t.Errorf("%d requests elsewhere, %d registrations; want 0 and 2", other.total(), as.registrations)
	}
}
