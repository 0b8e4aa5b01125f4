package session_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// A server that redirects its MCP endpoint elsewhere never gets the token
// sent there: not to another host, and not to another port of the same host
// (which Go's HTTP client alone would allow).
func TestTokensNeverFollowARedirectToAnotherOrigin(t *testing.T) {
	var elsewhere, leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get("Authorization") != "" || r.Header.Get("DPoP") != "" {
			leaked.Add(1)
		}
		http.NotFound(w, r)
	}))
	defer other.Close()
	var tokened atomic.Int32
	mcpSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer the-token" {
			tokened.Add(1)
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer mcpSrv.Close()
	if !strings.HasPrefix(other.URL, "http://127.0.0.1:") || !strings.HasPrefix(mcpSrv.URL, "http://127.0.0.1:") {
		t.Fatalf("want both servers on 127.0.0.1 (same host, other port): %s %s", mcpSrv.URL, other.URL)
	}
	ctx := context.Background()
	store := auth.NewMemoryStore()
	key := auth.Key{ServerID: "s", URL: mcpSrv.URL + "/mcp"}
	if err := store.Save(ctx, key, &auth.Record{Token: &auth.Token{AccessToken: "the-token", TokenType: "Bearer", ExpiresAt: time.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	h, err := auth.New(auth.Options{ServerID: "s", ServerURL: key.URL, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.Connect(ctx, session.Options{ID: "s", URL: key.URL, Transport: session.TransportHTTP, OAuthHandler: h, RequestTimeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("connect through a cross-origin redirect: %v", err)
	}
	if tokened.Load() == 0 {
		t.Fatal("the server never saw the token: the test proves nothing")
	}
	if leaked.Load() != 0 {
		t.Errorf("the other origin got the token %d times (%d requests)", leaked.Load(), elsewhere.Load())
	}
}

// A legacy SSE server whose endpoint event names another origin (here
// another port of the same host) gets no POST there: not the handshake, not
// the configured secret header, not the token. The connection fails with an
// error naming the server and both origins.
func TestSSEEndpointOnAnotherOriginGetsNothing(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer other.Close()
	legacy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/message?sessionid=1\n\n", other.URL)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer legacy.Close()
	a := &staticAuth{token: "the-token", next: func() string { return "the-token" }}
	start := time.Now()
	_, err := session.Connect(context.Background(), session.Options{
		ID: "legacy", Transport: session.TransportSSE, URL: legacy.URL + "/sse",
		Headers: map[string]string{"X-Api-Key": "hdr-secret-1234"}, OAuthHandler: a,
		ConnectTimeout: 5 * time.Second,
	})
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
	if err == nil {
		t.Fatal("connected through an endpoint on another origin")
	}
	for _, want := range []string{`server "legacy"`, strings.TrimPrefix(other.URL, "http://"), strings.TrimPrefix(legacy.URL, "http://"), "another origin"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	t.Log(err)
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("took %s: the refusal should be immediate", d)
	}
}
