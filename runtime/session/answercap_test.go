package session_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// countingWriter counts what the server managed to write.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// A read whose context carries an answer cap (hostfetch.WithAnswerCap) is
// cut at that cap, not at the session's response cap: a 30 MiB answer to
// a read capped at 1 MiB fails with ErrTooLarge (and ErrResponseTooLarge),
// its rest unread, over a JSON body and an event stream alike; the session
// stays usable, and a read without the cap still gets the session's cap.
func TestAnswerCapOfTheReadHoldsBelowTheResponseCap(t *testing.T) {
	for _, jsonResponse := range []bool{true, false} {
		name := map[bool]string{true: "json", false: "sse"}[jsonResponse]
		t.Run(name, func(t *testing.T) {
			var written atomic.Int64
			h := newHostile(t, jsonResponse, nil, func(w http.ResponseWriter, _ *http.Request, m rpcMsg) bool {
				if m.Method != "resources/read" {
					return false
				}
				cw := countingWriter{w, &written}
				if jsonResponse {
					w.Header().Set("Content-Type", "application/json")
				} else {
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(cw, "event: message\ndata: ")
				}
				writeJSONAnswer(cw, m.ID, 30<<20)
				if !jsonResponse {
					io.WriteString(cw, "\n\n")
				}
				return true
			})
			s := connect(t, session.Options{ID: "big", URL: h.URL, MaxResponseBytes: 32 << 20})
			ctx := hostfetch.WithAnswerCap(context.Background(), 1<<20)
			_, err := s.ReadResource(ctx, "ui://big")
			if !errors.Is(err, hostfetch.ErrTooLarge) || !errors.Is(err, session.ErrResponseTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			if !strings.Contains(err.Error(), "answer cap of 1 MiB") {
				t.Errorf("error %q does not name the read's cap", err)
			}
			// The server wrote what the sockets buffer beyond the cap, not 30 MiB.
			if n := written.Load(); n > 16<<20 {
				t.Errorf("the server wrote %d bytes: the answer was read past the cap", n)
			}
			stillUsable(t, s)
		})
	}
}
