package auth

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLoginFlowSendsPKCEStateResourceAndUsesToken(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	p := &testPrompter{}
	h := newHandler(t, rs, p, nil, nil)
	req, resp := unauthorized(rs, 401, "", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	if got := currentToken(t, h); got != "access-1" {
		t.Fatalf("token = %q, want access-1", got)
	}
	q := as.authorizes[0]
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) < 43 {
		t.Errorf("authorization request lacks PKCE S256: %v", q)
	}
	if q.Get("resource") != rs.URL() {
		t.Errorf("authorize resource = %q, want %q", q.Get("resource"), rs.URL())
	}
	if q.Get("scope") != "mcp:read" {
		t.Errorf("scope = %q, want the PRM scopes_supported mcp:read", q.Get("scope"))
	}
	f := as.lastTokenForm()
	if f.Get("resource") != rs.URL() || f.Get("code_verifier") == "" || f.Get("grant_type") != "authorization_code" {
		t.Errorf("token request = %v", f)
	}
	if n := p.logins.Load(); n != 1 {
		t.Errorf("logins = %d, want 1", n)
	}
}

func TestResourceMismatchStopsBeforeAnyAuthorizationServerRequest(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	rs.prm["resource"] = "https://evil.example.com/mcp"
	p := &testPrompter{}
	h := newHandler(t, rs, p, nil, nil)
	req, resp := unauthorized(rs, 401, "", "")
	err := h.Authorize(context.Background(), req, resp)
	if !errors.Is(err, ErrResourceMismatch) {
		t.Fatalf("Authorize error = %v, want ErrResourceMismatch", err)
	}
	if n := as.total(); n != 0 {
		t.Errorf("authorization server got %d requests after a resource mismatch: %v", n, as.requests)
	}
	if p.logins.Load() != 0 {
		t.Error("prompter was asked to log in after a resource mismatch")
	}
	st, _ := h.Status(context.Background())
	if st.Reason != "resource mismatch" {
		t.Errorf("status reason = %q", st.Reason)
	}
}

func TestConcurrentAuthorizeRunsOneFlow(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	p := &testPrompter{gate: make(chan struct{})}
	h := newHandler(t, rs, p, nil, nil)

	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := unauthorized(rs, 401, "", "")
			errs[i] = h.Authorize(context.Background(), req, resp)
		}()
	}
	// Let the first login wait until every caller is queued behind it.
	deadline := time.Now().Add(5 * time.Second)
	for p.logins.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	close(p.gate)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if got := p.logins.Load(); got != 1 {
		t.Errorf("logins = %d, want 1", got)
	}
	if as.registrations != 1 {
		t.Errorf("registrations = %d, want 1", as.registrations)
	}
	if as.issued != 1 {
		t.Errorf("tokens issued = %d, want 1", as.issued)
	}
}

func TestWaitersGetTheFailureInsteadOfPromptingAgain(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	p := &testPrompter{gate: make(chan struct{}), tamper: func(r *CallbackResult) { r.Code, r.Error = "", "access_denied" }}
	h := newHandler(t, rs, p, nil, nil)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := unauthorized(rs, 401, "", "")
			errs[i] = h.Authorize(context.Background(), req, resp)
		}()
	}
	for p.logins.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	close(p.gate)
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "access_denied") {
			t.Errorf("caller %d: err = %v, want access_denied", i, err)
		}
	}
	if got := p.logins.Load(); got != 1 {
		t.Errorf("logins = %d, want 1", got)
	}
}

func TestStale401DoesNotRefreshOrLogin(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	p := &testPrompter{}
	h := newHandler(t, rs, p, nil, nil)
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := as.total()
	// A request that carried an older token was rejected: the current token
	// is used for the retry, nothing else happens.
	req, resp := unauthorized(rs, 401, "some-older-token", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if as.total() != before || p.logins.Load() != 1 {
		t.Errorf("stale 401 caused %d authorization server requests and %d logins", as.total()-before, p.logins.Load())
	}
}

func Test401WithCurrentTokenRefreshesWithResource(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	p := &testPrompter{}
	h := newHandler(t, rs, p, nil, nil)
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	req, resp := unauthorized(rs, 401, "access-1", "")
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	f := as.lastTokenForm()
	if f.Get("grant_type") != "refresh_token" || f.Get("refresh_token") != "refresh-1" {
		t.Fatalf("expected a refresh, got %v", f)
	}
	if f.Get("resource") != rs.URL() {
		t.Errorf("refresh resource = %q, want %q", f.Get("resource"), rs.URL())
	}
	if p.logins.Load() != 1 {
		t.Errorf("logins = %d, want 1 (refresh, not login)", p.logins.Load())
	}
	if got := currentToken(t, h); got != "access-2" {
		t.Errorf("token = %q, want access-2", got)
	}
}

func TestRefreshBeforeExpiryCarriesResourceAndRefreshToken(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	store := NewMemoryStore()
	as.expiresIn = 120
	h := newHandler(t, rs, &testPrompter{}, store, func(o *Options) { o.Now = clk.Now; o.RefreshSkew = 30 * time.Second })
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Add(60 * time.Second) // 60 s left: no refresh yet
	if got := currentToken(t, h); got != "access-1" {
		t.Fatalf("token = %q, want access-1", got)
	}
	as.mu.Lock()
	as.noRefreshToken = true // the server does not rotate: keep the old one
	as.mu.Unlock()
	clk.Add(40 * time.Second) // 20 s left: inside the skew
	if got := currentToken(t, h); got != "access-2" {
		t.Fatalf("token = %q, want access-2 after refresh", got)
	}
	f := as.lastTokenForm()
	if f.Get("grant_type") != "refresh_token" || f.Get("resource") != rs.URL() {
		t.Errorf("refresh form = %v", f)
	}
	rec, _ := store.Load(context.Background(), Key{ServerID: "srv", URL: rs.URL()})
	if rec.Token.AccessToken != "access-2" || rec.Token.RefreshToken != "refresh-1" {
		t.Errorf("stored token = %+v; want access-2 with refresh-1 carried forward", rec.Token)
	}
	if !slices.Equal(rec.Scopes, []string{"mcp:read"}) {
		t.Errorf("scopes = %v, want carried forward [mcp:read]", rec.Scopes)
	}
}

func TestInvalidGrantMeansLoginRequired(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	h := newHandler(t, rs, &testPrompter{}, store, func(o *Options) { o.Now = clk.Now })
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A runtime without a prompter (background reconnect) sharing the store.
	h2 := newHandler(t, rs, nil, store, func(o *Options) { o.Now = clk.Now })
	as.mu.Lock()
	as.refreshError = "invalid_grant"
	as.mu.Unlock()
	clk.Add(2 * time.Hour)
	if got := currentToken(t, h2); got != "" {
		t.Fatalf("token after invalid_grant = %q, want none", got)
	}
	req, resp := unauthorized(rs, 401, "", "")
	err := h2.Authorize(context.Background(), req, resp)
	var lre *LoginRequiredError
	if !errors.Is(err, ErrLoginRequired) || !errors.As(err, &lre) {
		t.Fatalf("Authorize = %v, want ErrLoginRequired", err)
	}
	if !strings.Contains(lre.Reason, "invalid_grant") {
		t.Errorf("reason %q does not name invalid_grant", lre.Reason)
	}
	rec, _ := store.Load(context.Background(), Key{ServerID: "srv", URL: rs.URL()})
	if rec.Token != nil {
		t.Error("rejected token still stored")
	}
	if rec.Client == nil {
		t.Error("client registration deleted on invalid_grant; only the token is invalid")
	}
}

func TestServerErrorsNeverDeleteCredentials(t *testing.T) {
	for _, status := range []int{500, 503} {
		as := newTestAS(t)
		rs := newTestRS(t, as)
		store := NewMemoryStore()
		clk := &clock{t: time.Unix(1_700_000_000, 0)}
		h := newHandler(t, rs, &testPrompter{}, store, func(o *Options) { o.Now = clk.Now })
		if err := h.Login(context.Background()); err != nil {
			t.Fatal(err)
		}
		as.mu.Lock()
		as.tokenStatus = status
		as.tokenBody = `{"detail":"refresh-1 is what you sent"}`
		as.mu.Unlock()
		clk.Add(2 * time.Hour)
		ts, _ := h.TokenSource(context.Background())
		_, err := ts.Token()
		if err == nil {
			t.Fatalf("status %d: expired token and failed refresh gave no error", status)
		}
		if strings.Contains(err.Error(), "refresh-1") || strings.Contains(err.Error(), "access-1") {
			t.Errorf("error leaks a token: %v", err)
		}
		rec, _ := store.Load(context.Background(), Key{ServerID: "srv", URL: rs.URL()})
		if rec.Token == nil || rec.Token.RefreshToken != "refresh-1" || rec.Client == nil {
			t.Errorf("status %d deleted credentials: %+v", status, rec)
		}
	}
}

func TestDynamicRegistrationStoredReusedAndEvicted(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	store := NewMemoryStore()
	ctx := context.Background()
	h := newHandler(t, rs, &testPrompter{}, store, nil)
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	// A restarted runtime: same store, new handler, logged out but keeping
	// the client.
	h2 := newHandler(t, rs, &testPrompter{}, store, nil)
	if err := h2.Logout(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := h2.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if as.registrations != 1 {
		t.Fatalf("registrations = %d after a restart, want 1 (reused)", as.registrations)
	}
	if got := as.authorizes[1].Get("client_id"); got != "client-1" {
		t.Errorf("second login used client %q, want client-1", got)
	}

	// A changed redirect URI needs a new registration.
	h3 := newHandler(t, rs, &testPrompter{redirect: "http://127.0.0.1:10/cb"}, store, nil)
	if err := h3.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if as.registrations != 2 {
		t.Errorf("registrations = %d after a redirect URI change, want 2", as.registrations)
	}

	// The server forgets the client: invalid_client evicts it.
	as.mu.Lock()
	as.tokenStatus, as.tokenError = http.StatusUnauthorized, "invalid_client"
	as.mu.Unlock()
	err := h3.Login(ctx)
	if err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Fatalf("Login = %v, want invalid_client", err)
	}
	rec, _ := store.Load(ctx, Key{ServerID: "srv", URL: rs.URL()})
	if rec.Client != nil {
		t.Errorf("rejected registration kept: %+v", rec.Client)
	}
	as.mu.Lock()
	as.tokenStatus, as.tokenError = 0, ""
	as.mu.Unlock()
	if err := h3.Login(ctx); err != nil {
		t.Fatal(err)
	}
	// The failed login tried one fresh registration (the third, refused
	// too and so not kept); this login registers the fourth.
	if as.registrations != 4 {
		t.Errorf("registrations = %d after eviction, want 4", as.registrations)
	}
}

func TestRegistrationBoundToIssuer(t *testing.T) {
	as1, as2 := newTestAS(t), newTestAS(t)
	as1.name = "as1-"
	rs := newTestRS(t, as1)
	store := NewMemoryStore()
	ctx := context.Background()
	h := newHandler(t, rs, &testPrompter{}, store, nil)
	if err := h.Login(ctx); err != nil {
		t.Fatal(err)
	}
	rs.mu.Lock()
	rs.prm["authorization_servers"] = []string{as2.URL()}
	rs.mu.Unlock()
	req, resp := unauthorized(rs, 401, "access-1", "")
	if err := h.Authorize(ctx, req, resp); err != nil {
		t.Fatal(err)
	}
	if as2.registrations != 1 {
		t.Errorf("new authorization server saw %d registrations, want 1", as2.registrations)
	}
	for _, q := range as2.authorizes {
		if q.Get("client_id") == "as1-client-1" {
			t.Error("client of the old authorization server reused")
		}
	}
	for _, f := range as2.tokenForms {
		if f.Get("client_id") == "as1-client-1" {
			t.Error("client of the old authorization server sent to the new one")
		}
	}
	if f := as1.lastTokenForm(); f.Get("grant_type") == "refresh_token" {
		t.Error("refreshed at the old authorization server after the resource moved")
	}
}

func TestStepUpUnionAndLimit(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	p := &testPrompter{}
	h := newHandler(t, rs, p, nil, nil)
	ctx := context.Background()
	req, resp := unauthorized(rs, 401, "", `Bearer scope="mcp:basic", resource_metadata="`+rs.srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
	if err := h.Authorize(ctx, req, resp); err != nil {
		t.Fatal(err)
	}
	challenge := `Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="` + rs.srv.URL + `/.well-known/oauth-protected-resource/mcp"`
	var err error
	for i := range 5 {
		tok := currentToken(t, h)
		req, resp := unauthorized(rs, 403, tok, challenge)
		if err = h.Authorize(ctx, req, resp); err != nil {
			if i != DefaultMaxStepUps {
				t.Fatalf("step-up %d failed early: %v", i+1, err)
			}
			break
		}
	}
	if err == nil {
		t.Fatal("step-up never gave up")
	}
	if got := as.authorizes[1].Get("scope"); got != "mcp:basic mcp:write" {
		t.Errorf("step-up scope = %q, want the union mcp:basic mcp:write", got)
	}
	if got := p.logins.Load(); got != 1+DefaultMaxStepUps {
		t.Errorf("logins = %d, want %d", got, 1+DefaultMaxStepUps)
	}
}

func TestScopeSelection(t *testing.T) {
	as := newTestAS(t)
	as.meta = map[string]any{"scopes_supported": []string{"mcp:read", "offline_access"}}
	rs := newTestRS(t, as)
	h := newHandler(t, rs, &testPrompter{}, nil, nil)
	req, resp := unauthorized(rs, 401, "", `Bearer scope="a b", resource_metadata="`+rs.srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if got := as.authorizes[0].Get("scope"); got != "a b offline_access" {
		t.Errorf("scope = %q, want challenge scopes plus advertised offline_access", got)
	}

	as2 := newTestAS(t)
	rs2 := newTestRS(t, as2)
	delete(rs2.prm, "scopes_supported")
	h2 := newHandler(t, rs2, &testPrompter{}, nil, nil)
	if err := h2.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := as2.authorizes[0]["scope"]; ok {
		t.Errorf("scope sent although nothing names one: %v", as2.authorizes[0])
	}
}

func TestNoPrompterMeansLoginRequiredWithoutNetwork(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	h := newHandler(t, rs, nil, nil, nil)
	req, resp := unauthorized(rs, 401, "", "")
	err := h.Authorize(context.Background(), req, resp)
	if !errors.Is(err, ErrLoginRequired) {
		t.Fatalf("Authorize = %v, want ErrLoginRequired", err)
	}
	if as.registrations != 0 || as.count("/token") != 0 {
		t.Error("registered or requested tokens without a way to log in")
	}
}
