package serve_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
)

// TestReconnectDuringAConnectHidesThatSession: mcp.reconnect while a
// connect is under way (its handshake done, its tools/list not yet
// answered) answers connecting, and that session's ready, which comes
// after the request, is never shown: the reconnect closes it. Before, a
// server that was connecting got no mark, and mcp.logout once answered
// such a session's ready (e2e TestProtocolLogoutAnswersConnecting).
func TestReconnectDuringAConnectHidesThatSession(t *testing.T) {
	h := goSDKHandler()
	var once sync.Once
	listing, release := make(chan string), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if strings.Contains(string(body), `"tools/list"`) {
				once.Do(func() { // the first session's list waits
					listing <- r.Header.Get("Mcp-Session-Id")
					<-release
				})
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	global := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(global, []byte(`{"version":1,"mcp":{"servers":{"a":{"url":"`+srv.URL+`"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	u := &ui{}
	conn, _, _ := startConnUI(t, serve.ServeOptions{Config: config.LoadOptions{GlobalPath: global}, WatchInterval: -1}, u)
	rt := protocol.NewServerCaller(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		t.Fatal(err)
	}
	var first string
	select {
	case first = <-listing:
	case <-ctx.Done():
		t.Fatal("the first session never listed its tools")
	}
	res, err := rt.MCPReconnect(ctx, &protocol.ServerParams{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Server.State != protocol.StateConnecting || res.Server.Tools != 0 {
		t.Errorf("mcp.reconnect answered %s with %d tools, want connecting with 0", res.Server.State, res.Server.Tools)
	}
	close(release)
	for {
		u.mu.Lock()
		shown := slices.Clone(u.statuses)
		u.mu.Unlock()
		for _, st := range shown {
			if st.State == protocol.StateReady && st.SessionID == first {
				t.Fatalf("the session the reconnect closes was shown ready: %+v", st)
			}
		}
		if n := len(shown); n > 0 && shown[n-1].State == protocol.StateReady {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no ready after the reconnect: %+v", shown)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
