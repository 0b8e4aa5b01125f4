package session_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStatelessConnectDoesNotWaitForListen checks that connecting to a
// 2026-07-28 server does not wait for the subscriptions/listen stream to
// be acknowledged (the SDK's Connect would: one more round trip before the
// first tools/list), and that the stream, once up, still brings the
// catalog's changes.
func TestStatelessConnectDoesNotWaitForListen(t *testing.T) {
	const ackDelay = 3 * time.Second
	server := mcp.NewServer(&mcp.Implementation{Name: "stateless", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "first"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"subscriptions/listen"`)) {
				time.Sleep(ackDelay)
			}
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()

	start := time.Now()
	s, err := session.Connect(context.Background(), session.Options{ID: "stateless", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d := time.Since(start); d >= ackDelay {
		t.Fatalf("connect took %s: it waited for the subscription's acknowledgement", d)
	}
	if v := s.Info().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", v)
	}
	if n := len(s.Tools()); n != 1 {
		t.Fatalf("%d tools, want 1", n)
	}
	// Once the stream is up, a change reaches the catalog.
	waitFor(t, "the subscription", 2*ackDelay, func() bool { return time.Since(start) > ackDelay+500*time.Millisecond })
	mcp.AddTool(server, &mcp.Tool{Name: "second"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	waitFor(t, "the new tool in the catalog", 10*time.Second, func() bool { return len(s.Tools()) == 2 })
}

// TestOneShotOpensNoListenStream checks that a one-shot session (a CLI
// command) to a 2026-07-28 server sends no subscriptions/listen at all: it
// would never use the catalog's changes.
func TestOneShotOpensNoListenStream(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "stateless", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "first"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	listens := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"subscriptions/listen"`)) {
				listens <- struct{}{}
			}
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, oneShot := range []bool{false, true} {
		s, err := session.Connect(context.Background(), session.Options{ID: "stateless", URL: srv.URL, OneShot: oneShot})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CallTool(context.Background(), "first", map[string]any{"text": "hi"}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		n := 0
	drain:
		for {
			select {
			case <-listens:
				n++
			case <-time.After(200 * time.Millisecond):
				break drain
			}
		}
		if oneShot && n != 0 {
			t.Errorf("a one-shot session sent %d subscriptions/listen, want none", n)
		}
		if !oneShot && n == 0 {
			t.Error("a long-lived session sent no subscriptions/listen: the test cannot tell the two apart")
		}
	}
}
