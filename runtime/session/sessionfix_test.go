package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// An extension call (sent as its own POST) that gets 404 for a known
// session re-initializes like the SDK's requests do, and is retried once;
// the session is not reported lost (issue 12 item 7).
func TestExtensionCall404Reinitializes(t *testing.T) {
	ts := newTestServer(t)
	s := connect(t, session.Options{URL: ts.url(), ProtocolVersion: "2025-11-25"})
	first := s.Info().SessionID
	if first == "" {
		t.Fatal("a 2025-11-25 session has no id")
	}
	ts.resetSessions() // the server forgets every session
	var res map[string]any
	if err := s.Call(context.Background(), "ping", map[string]any{}, &res); err != nil {
		t.Fatalf("extension call after the server lost the session: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // give a wrong watcher time to report
	if err := s.Err(); err != nil {
		t.Fatalf("the session was reported lost: %v", err)
	}
	select {
	case <-s.Done():
		t.Fatal("Done closed after a re-initialization")
	default:
	}
	if info := s.Info(); info.Reinitialized != 1 || info.SessionID == first {
		t.Errorf("Reinitialized = %d, session %q (was %q)", info.Reinitialized, info.SessionID, first)
	}
	stillUsable(t, s)
}

// An answer on a POST's event stream that names another request fails the
// call at once, though the server keeps the stream open.
func TestSSEAnswerWithWrongIDFailsFast(t *testing.T) {
	h := newHostile(t, false, []string{"wrongid"}, func(w http.ResponseWriter, r *http.Request, m rpcMsg) bool {
		if m.Params.Name != "wrongid" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: ")
		writeJSONAnswer(w, json.RawMessage(`9999`), 10)
		io.WriteString(w, "\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(15 * time.Second):
		}
		return true
	})
	s := connect(t, session.Options{ID: "w", URL: h.URL, RequestTimeout: 10 * time.Second})
	start := time.Now()
	_, err := s.CallTool(context.Background(), "wrongid", map[string]any{})
	if !errors.Is(err, session.ErrWrongAnswer) || !strings.Contains(err.Error(), "with id 9999") {
		t.Fatalf("err = %v, want ErrWrongAnswer naming id 9999", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	stillUsable(t, s)
}

// Retry-After on 429 and 503 is honoured once, when it is short and ends
// before the request's deadline; otherwise the call fails at once.
func TestRetryAfterIsHonouredWithACap(t *testing.T) {
	for _, tc := range []struct {
		name, after string
		status      int
		timeout     time.Duration
		wantOK      bool
		minTime     time.Duration
	}{
		{"429 one second", "1", http.StatusTooManyRequests, 10 * time.Second, true, 900 * time.Millisecond},
		{"503 as a date", "", http.StatusServiceUnavailable, 10 * time.Second, true, 0},
		{"an hour is over the cap", "3600", http.StatusTooManyRequests, 10 * time.Second, false, 0},
		{"beyond the deadline", "3", http.StatusTooManyRequests, 1500 * time.Millisecond, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var refused atomic.Int32
			h := newHostile(t, true, []string{"busy"}, func(w http.ResponseWriter, _ *http.Request, m rpcMsg) bool {
				if m.Params.Name != "busy" || refused.Add(1) > 1 {
					return false
				}
				after := tc.after
				if after == "" {
					after = time.Now().Add(time.Second).UTC().Format(http.TimeFormat)
				}
				w.Header().Set("Retry-After", after)
				http.Error(w, "slow down", tc.status)
				return true
			})
			s := connect(t, session.Options{ID: "busy", URL: h.URL, RequestTimeout: tc.timeout})
			start := time.Now()
			_, err := s.CallTool(context.Background(), "busy", map[string]any{"text": "ok"})
			d := time.Since(start)
			if tc.wantOK {
				if err != nil {
					t.Fatalf("not retried: %v", err)
				}
				if d < tc.minTime {
					t.Errorf("retried after %s, before Retry-After", d)
				}
				if refused.Load() != 2 {
					t.Errorf("%d attempts, want 2", refused.Load())
				}
				return
			}
			if err == nil {
				t.Fatal("succeeded")
			}
			if d > time.Second {
				t.Errorf("failed after %s: it waited for a Retry-After it could not honour", d)
			}
			if refused.Load() != 1 {
				t.Errorf("%d attempts, want 1", refused.Load())
			}
		})
	}
}

// A request from the server whose id is not an integer or a string (1.5)
// is refused with a JSON-RPC error echoing that id; the SDK never sees it,
// so it is not answered as id 1 (issue 12 item 7).
func TestServerRequestWithFractionalIDIsRefused(t *testing.T) {
	var mu sync.Mutex
	var answers []string // responses the client POSTed
	h := newHostile(t, false, []string{"asks"}, func(w http.ResponseWriter, r *http.Request, m rpcMsg) bool {
		if m.Method == "" && len(m.ID) > 0 {
			body, _ := json.Marshal(m)
			mu.Lock()
			answers = append(answers, fmt.Sprintf("%s %s", m.ID, body))
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			return true
		}
		if m.Params.Name != "asks" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
		io.WriteString(w, "data: ")
		writeJSONAnswer(w, m.ID, 2)
		io.WriteString(w, "\n\n")
		return true
	})
	s := connect(t, session.Options{ID: "ids", URL: h.URL})
	if _, err := s.CallTool(context.Background(), "asks", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an answer to the server's request", 5*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(answers) > 0
	})
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(answers) != 1 || !strings.HasPrefix(answers[0], "1.5 ") {
		t.Fatalf("answers = %q, want one, for id 1.5", answers)
	}
}
