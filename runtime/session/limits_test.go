package session_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// overCap checks that err is the cap's error, naming the server and the cap.
func overCap(t *testing.T, err error, server, capText string) {
	t.Helper()
	if !errors.Is(err, session.ErrResponseTooLarge) {
		t.Fatalf("err = %v, want ErrResponseTooLarge", err)
	}
	for _, want := range []string{fmt.Sprintf("server %q", server), capText, "max_response_bytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// stillUsable checks that the session answers after a failed call.
func stillUsable(t *testing.T, s *session.Session) {
	t.Helper()
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "still here"})
	if err != nil {
		t.Fatalf("the session is not usable after the failed call: %v", err)
	}
	if got := textOf(t, res); got != "still here" {
		t.Errorf("echo = %q", got)
	}
	if err := s.Err(); err != nil {
		t.Errorf("session lost: %v", err)
	}
}

// A JSON answer over the cap fails its call at once, with an error naming
// the server and the cap, and the session stays usable.
func TestJSONAnswerOverCapFailsTheCallNotTheSession(t *testing.T) {
	h := newHostile(t, true, []string{"big"}, func(w http.ResponseWriter, _ *http.Request, m rpcMsg) bool {
		if m.Params.Name != "big" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		writeJSONAnswer(w, m.ID, 5<<20)
		return true
	})
	s := connect(t, session.Options{ID: "big", URL: h.URL, MaxResponseBytes: 1 << 20})
	_, err := s.CallTool(context.Background(), "big", map[string]any{})
	overCap(t, err, "big", "1 MiB")
	stillUsable(t, s)
}

// A gzip body is counted inflated: a small body that inflates past the cap
// fails the call, quickly.
func TestGzipBombIsCountedInflated(t *testing.T) {
	h := newHostile(t, true, []string{"bomb"}, func(w http.ResponseWriter, _ *http.Request, m rpcMsg) bool {
		if m.Params.Name != "bomb" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		writeJSONAnswer(zw, m.ID, 64<<20)
		zw.Close()
		return true
	})
	s := connect(t, session.Options{ID: "bomb", URL: h.URL, MaxResponseBytes: 2 << 20})
	start := time.Now()
	_, err := s.CallTool(context.Background(), "bomb", map[string]any{})
	overCap(t, err, "bomb", "2 MiB")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	stillUsable(t, s)
}

// An SSE event over the cap on a POST's stream fails that call; the SDK
// never buffers it (go-sdk v1.8.0 has no event cap by default).
func TestSSEEventOverCapFailsTheCall(t *testing.T) {
	h := newHostile(t, false, []string{"bigevent"}, func(w http.ResponseWriter, _ *http.Request, m rpcMsg) bool {
		if m.Params.Name != "bigevent" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: ")
		writeJSONAnswer(w, m.ID, 3<<20)
		io.WriteString(w, "\n\n")
		return true
	})
	s := connect(t, session.Options{ID: "ev", URL: h.URL, MaxResponseBytes: 1 << 20})
	_, err := s.CallTool(context.Background(), "bigevent", map[string]any{})
	overCap(t, err, "ev", "1 MiB")
	stillUsable(t, s)
}

// An event over the cap on the standalone GET stream (a notification) is
// dropped; the stream and the session live on.
func TestOversizedNotificationOnTheGETStreamIsDropped(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	sent := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			sdk.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`)
		io.WriteString(w, strings.Repeat("y", 3<<20))
		io.WriteString(w, "\"}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-sent:
		default:
			close(sent)
		}
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	t.Cleanup(ts.Close) // after the session's Close, which ends the GET
	s := connect(t, session.Options{ID: "get", URL: ts.URL, MaxResponseBytes: 1 << 20, ProtocolVersion: "2025-11-25"})
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("the client never opened the GET stream")
	}
	time.Sleep(200 * time.Millisecond)
	stillUsable(t, s)
}

// Over the legacy SSE transport answers come on the GET stream: one over
// the cap still fails its own call, found by its id, and the stream goes on.
func TestLegacySSEAnswerOverCapFailsTheCall(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "big"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("z", 3<<20)}}}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	s := connect(t, session.Options{ID: "old", Transport: session.TransportSSE, URL: ts.URL, MaxResponseBytes: 1 << 20, RequestTimeout: 10 * time.Second})
	start := time.Now()
	_, err := s.CallTool(context.Background(), "big", map[string]any{})
	overCap(t, err, "old", "1 MiB")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s: the call waited for its timeout", d)
	}
	stillUsable(t, s)
}

// A JSON answer that names another request fails its call at once rather
// than leaving it to wait out the timeout (issue 12 item 7).
func TestJSONAnswerWithWrongIDFailsFast(t *testing.T) {
	h := newHostile(t, true, []string{"wrongid"}, func(w http.ResponseWriter, _ *http.Request, m rpcMsg) bool {
		if m.Params.Name != "wrongid" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		writeJSONAnswer(w, []byte(`"not-yours"`), 10)
		return true
	})
	s := connect(t, session.Options{ID: "w", URL: h.URL, RequestTimeout: 20 * time.Second})
	start := time.Now()
	_, err := s.CallTool(context.Background(), "wrongid", map[string]any{})
	if !errors.Is(err, session.ErrWrongAnswer) || !strings.Contains(err.Error(), `"not-yours"`) || !strings.Contains(err.Error(), `server "w"`) {
		t.Fatalf("err = %v, want ErrWrongAnswer naming the server and the id", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s: the call waited for its timeout", d)
	}
	stillUsable(t, s)
}
