package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// headerServer records the Authorization and DPoP headers it receives.
func headerServer(t *testing.T) (*httptest.Server, func() http.Header) {
	t.Helper()
	var mu sync.Mutex
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, func() http.Header {
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}

// A legacy SSE server configured with a static "Authorization: Bearer"
// header: its first request reaches the transport hook before anything
// loaded the handler's record (issue 12 item 1, a nil pointer panic that
// took down host serve). The hook must pass such a request through as it is.
func TestTransportHookBeforeAnyRecordIsLoadedPassesThrough(t *testing.T) {
	srv, seen := headerServer(t)
	h, err := New(Options{ServerID: "static-sse", ServerURL: srv.URL + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/sse", nil)
	req.Header.Set("Authorization", "Bearer static-configured-token")
	resp, err := (&http.Client{Transport: h.WrapTransport(http.DefaultTransport)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := seen().Get("Authorization"); got != "Bearer static-configured-token" {
		t.Errorf("Authorization %q: the static header was changed", got)
	}
	if got := seen().Get("DPoP"); got != "" {
		t.Errorf("a DPoP proof %q on a request carrying no token of the handler", got)
	}
}

// panicStore panics on Load once armed.
type panicStore struct {
	Store
	armed atomic.Bool
}

func (s *panicStore) Load(ctx context.Context, key Key) (*Record, error) {
	if s.armed.Load() {
		panic("store exploded")
	}
	return s.Store.Load(ctx, key)
}

// A panic in auth code called from a session's transport (the token
// source, Authorize, the transport hook) is returned as an error naming the
// server; the process survives.
func TestPanicsInTransportCallsBecomeErrorsNamingTheServer(t *testing.T) {
	srv, _ := headerServer(t)
	ctx := context.Background()
	store := &panicStore{Store: NewMemoryStore()}
	key := Key{ServerID: "boom", URL: srv.URL + "/mcp"}
	_ = store.Save(ctx, key, &Record{
		Token:   &Token{AccessToken: "bound-token", TokenType: tokenTypeDPoP, ExpiresAt: time.Now().Add(time.Hour)},
		DPoPKey: "",
	})
	var nowPanics atomic.Bool
	h, err := New(Options{ServerID: "boom", ServerURL: srv.URL + "/mcp", Store: store, Now: func() time.Time {
		if nowPanics.Load() {
			panic("clock exploded")
		}
		return time.Now()
	}})
	if err != nil {
		t.Fatal(err)
	}
	wantNamed := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "exploded") {
			t.Errorf("%s: error %v, want one naming the server and the panic", what, err)
		}
	}

	// The hook signs a DPoP proof for the handler's own token; the clock
	// it reads panics.
	ts, err := h.TokenSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nowPanics.Store(true)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer bound-token")
	_, err = (&http.Client{Transport: h.WrapTransport(http.DefaultTransport)}).Do(req)
	wantNamed("transport hook", err)

	_, err = ts.Token()
	wantNamed("token source", err)
	nowPanics.Store(false)

	// A fresh handler whose store panics while loading.
	store.armed.Store(true)
	h2, _ := New(Options{ServerID: "boom", ServerURL: srv.URL + "/mcp", Store: store})
	_, err = h2.TokenSource(ctx)
	wantNamed("TokenSource", err)
	areq, aresp := unauthorizedFor(srv.URL+"/mcp", http.StatusUnauthorized)
	err = h2.Authorize(ctx, areq, aresp)
	wantNamed("Authorize", err)
	if errors.Is(err, ErrLoginRequired) {
		t.Errorf("a panic reads as login required: %v", err)
	}
}

func unauthorizedFor(u string, status int) (*http.Request, *http.Response) {
	req, _ := http.NewRequest(http.MethodPost, u, nil)
	resp := &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody}
	return req, resp
}
