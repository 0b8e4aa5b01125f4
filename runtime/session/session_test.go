package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(t *testing.T, o session.Options) *session.Session {
	t.Helper()
	if o.ID == "" {
		o.ID = "test"
	}
	s, err := session.Connect(context.Background(), o)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestHTTPConnectListCall(t *testing.T) {
	ts := newTestServer(t)
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ts.url(), Headers: map[string]string{"X-Team": "blue"}})
	info := s.Info()
	if info.ServerName != "test-server" || info.ServerVersion != "1.2.3" {
		t.Errorf("server info = %q %q", info.ServerName, info.ServerVersion)
	}
	if info.ProtocolVersion == "" {
		t.Error("no protocol version recorded")
	}
	if got := len(s.Tools()); got != 2 {
		t.Fatalf("tools = %d, want 2", got)
	}
	res, err := s.CallTool(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "hi" {
		t.Errorf("echo = %q", got)
	}
	hs := ts.postHeaders()
	if len(hs) == 0 {
		t.Fatal("server saw no POST")
	}
	for i, h := range hs {
		if h.Get("X-Team") != "blue" {
			t.Errorf("POST %d lacks the static header: %v", i, h)
		}
	}
	if last := hs[len(hs)-1]; last.Get("Mcp-Protocol-Version") != info.ProtocolVersion {
		t.Errorf("Mcp-Protocol-Version = %q, want %q", last.Get("Mcp-Protocol-Version"), info.ProtocolVersion)
	}
}

func TestCloseDeletesSession(t *testing.T) {
	ts := newTestServer(t)
	s, err := session.Connect(context.Background(), session.Options{ID: "d", URL: ts.url(), ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	id := s.Info().SessionID
	if id == "" {
		t.Fatal("a 2025-11-25 session has no id")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.deletes) != 1 || ts.deletes[0] != id {
		t.Errorf("DELETEs = %v, want one for session %q", ts.deletes, id)
	}
}

func TestStaticHeadersCannotNameProtocolHeaders(t *testing.T) {
	ts := newTestServer(t)
	_, err := session.Connect(context.Background(), session.Options{ID: "h", URL: ts.url(), Headers: map[string]string{"mcp-protocol-version": "1999-01-01"}})
	if err == nil || !strings.Contains(err.Error(), `header "mcp-protocol-version"`) || !strings.Contains(err.Error(), `server "h"`) {
		t.Fatalf("err = %v, want a refusal naming the server and the header", err)
	}
	if n := len(ts.postHeaders()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

func TestReinitializeOn404(t *testing.T) {
	ts := newTestServer(t)
	s := connect(t, session.Options{URL: ts.url(), ProtocolVersion: "2025-11-25"})
	if s.Info().SessionID == "" {
		t.Fatal("a 2025-11-25 session has no id")
	}
	first := s.Info().SessionID
	ts.resetSessions() // the server forgets every session
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "again"})
	if err != nil {
		t.Fatalf("call after session loss: %v", err)
	}
	if got := textOf(t, res); got != "again" {
		t.Errorf("echo = %q", got)
	}
	info := s.Info()
	if info.SessionID == first || info.SessionID == "" {
		t.Errorf("session id %q after re-initialize, was %q", info.SessionID, first)
	}
	if info.Reinitialized != 1 {
		t.Errorf("Reinitialized = %d, want 1", info.Reinitialized)
	}
}

func TestRequestTimeoutCancelsOnServer(t *testing.T) {
	ts := newTestServer(t)
	s := connect(t, session.Options{URL: ts.url(), RequestTimeout: 300 * time.Millisecond})
	_, err := s.CallTool(context.Background(), "block", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if !strings.Contains(err.Error(), `server "test"`) || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("error does not name the server and the timeout: %v", err)
	}
	select {
	case <-ts.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the request cancelled")
	}
	// The session is still usable.
	if _, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "ok"}); err != nil {
		t.Fatalf("call after timeout: %v", err)
	}
}

func TestCallerCancellation(t *testing.T) {
	ts := newTestServer(t)
	s := connect(t, session.Options{URL: ts.url()})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "block", nil)
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	select {
	case <-ts.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled never reached the server")
	}
}

func TestListChangedRefreshesCatalog(t *testing.T) {
	ts := newTestServer(t)
	changed := make(chan []*mcp.Tool, 4)
	s := connect(t, session.Options{URL: ts.url(), OnToolsChanged: func(tools []*mcp.Tool, err error) {
		if err == nil {
			changed <- tools
		}
	}})
	ts.server.AddTool(&mcp.Tool{Name: "added", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	select {
	case tools := <-changed:
		if len(tools) != 3 {
			t.Errorf("refreshed catalog has %d tools, want 3", len(tools))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no refresh after tools/list_changed")
	}
	if len(s.Tools()) != 3 {
		t.Errorf("Tools() = %d after refresh", len(s.Tools()))
	}
}

// rpcRequest is what the hand-written test servers read of a JSON-RPC
// request: its id (nil for a notification), its method and its cursor.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Cursor string `json:"cursor"`
	} `json:"params"`
}

// readRequest decodes the request in r's body; what it cannot read is a
// request without id or method.
func readRequest(r *http.Request) rpcRequest {
	var req rpcRequest
	_ = json.NewDecoder(r.Body).Decode(&req)
	return req
}

// readCall reads a request that wants an answer: anything but a POST is
// refused with 405 and a notification accepted with 202, and ok is false.
func readCall(w http.ResponseWriter, r *http.Request) (req rpcRequest, ok bool) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return req, false
	}
	if req = readRequest(r); req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return req, false
	}
	return req, true
}

// paginatingServer answers the handshake and tools/list by hand, with the
// cursor sequence next gives.
func paginatingServer(t *testing.T, next func(cursor string) string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		req := readRequest(r)
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "pager", "version": "1"}}
		case "tools/list":
			n := strings.Count(req.Params.Cursor, "x")
			res := map[string]any{"tools": []any{map[string]any{"name": fmt.Sprintf("t%d", n), "inputSchema": map[string]any{"type": "object"}}}}
			if c := next(req.Params.Cursor); c != "" {
				res["nextCursor"] = c
			}
			result = res
		default:
			if req.ID == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestPaginationFollowsEveryCursor(t *testing.T) {
	url := paginatingServer(t, func(c string) string {
		if len(c) < 4 {
			return c + "x"
		}
		return ""
	})
	s := connect(t, session.Options{URL: url, ProtocolVersion: "2025-11-25"})
	if got := len(s.Tools()); got != 5 {
		t.Errorf("tools = %d, want 5 (one per page)", got)
	}
}

func TestPaginationEndlessCursorIsCapped(t *testing.T) {
	url := paginatingServer(t, func(c string) string { return c + "x" })
	_, err := session.Connect(context.Background(), session.Options{ID: "pager", URL: url, ProtocolVersion: "2025-11-25", MaxToolPages: 20})
	if err == nil || !strings.Contains(err.Error(), "page cap 20") || !strings.Contains(err.Error(), `server "pager"`) {
		t.Fatalf("err = %v, want a page cap error naming the server", err)
	}
}

func TestPaginationCycleIsDetected(t *testing.T) {
	url := paginatingServer(t, func(c string) string {
		if c == "" {
			return "a"
		}
		return "a" // the same cursor again
	})
	_, err := session.Connect(context.Background(), session.Options{ID: "pager", URL: url, ProtocolVersion: "2025-11-25"})
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("err = %v, want a cycle error", err)
	}
}

func TestServerGoneMidCall(t *testing.T) {
	ts := newTestServer(t)
	s := connect(t, session.Options{URL: ts.url(), RequestTimeout: 5 * time.Second})
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := s.CallTool(context.Background(), "block", nil)
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	ts.http.CloseClientConnections()
	ts.http.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("call succeeded on a dead server")
		}
		t.Logf("call failed after %s: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(10 * time.Second):
		t.Fatal("call hung after the server went away")
	}
}

func TestSSEFallback(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A 2024-11-05 server: GET opens the event stream, which names the
		// endpoint for POSTs; a POST to the stream URL itself is refused.
		if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") == "" {
			posts.Add(1)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		sse.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s := connect(t, session.Options{URL: srv.URL})
	info := s.Info()
	if !info.FellBackToSSE || info.Transport != session.TransportSSE {
		t.Fatalf("info = %+v, want a fallback to sse", info)
	}
	if posts.Load() == 0 {
		t.Error("no Streamable HTTP attempt was made first")
	}
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "old"})
	if err != nil {
		t.Fatal(err)
	}
	if textOf(t, res) != "old" {
		t.Error("wrong echo over sse")
	}

	_, err = session.Connect(context.Background(), session.Options{ID: "strict", URL: srv.URL, NoSSEFallback: true})
	if err == nil {
		t.Error("NoSSEFallback still connected")
	}
}

func TestConnectErrorsNameServer(t *testing.T) {
	for _, o := range []session.Options{
		{ID: "a", Transport: "carrier-pigeon", URL: "http://x"},
		{ID: "b", Transport: session.TransportHTTP},
		{ID: "c", Transport: session.TransportStdio},
		{ID: "d", URL: "http://127.0.0.1:1/mcp", ConnectTimeout: 2 * time.Second},
		{ID: "e", Command: "/nonexistent/mcp-server"},
	} {
		_, err := session.Connect(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("server %q", o.ID)) {
			t.Errorf("%s: err = %v, want an error naming the server", o.ID, err)
		}
	}
}
