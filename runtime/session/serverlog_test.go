package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// A server's log messages are kept for the person, bounded and stripped:
// a flood keeps only the newest lines in about 8 KiB, a huge message one
// short line, and no escape sequence or bidi control survives.
func TestServerLogIsKeptBoundedAndStripped(t *testing.T) {
	h := newHostile(t, false, []string{"chatty"}, func(w http.ResponseWriter, _ *http.Request, m rpcMsg) bool {
		if m.Params.Name != "chatty" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		note := func(level, logger string, data any) {
			raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
				"params": map[string]any{"level": level, "logger": logger, "data": data}})
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", raw)
		}
		for i := range 3000 {
			note("debug", "flood", fmt.Sprintf("message %d", i))
		}
		note("error", "db", "\x1b]0;pwned\x07connection lost \u202eevil\x1b[2J")
		note("warning", "", map[string]any{"retry_in": 5})
		note("info", "big", strings.Repeat("z", 1<<20))
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n", m.ID)
		return true
	})
	s := connect(t, session.Options{ID: "chatty", URL: h.URL})
	if _, err := s.CallTool(context.Background(), "chatty", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// Notifications are handled in order but apart from the call's answer.
	waitFor(t, "the last log message", 10*time.Second, func() bool { return strings.Contains(s.ServerLog(), "info big: ") })
	log := s.ServerLog()
	if len(log) > 8<<10+64 { // the ring, and its one-line note that older lines were dropped
		t.Errorf("server log holds %d bytes, want at most 8 KiB", len(log))
	}
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "message 0\n", "message 1500\n"} {
		if strings.Contains(log, bad) {
			t.Errorf("server log keeps %q", bad)
		}
	}
	for _, want := range []string{"debug flood: message 2999\n", "error db: ", "connection lost", `warning: {"retry_in":5}`, "info big: zzz"} {
		if !strings.Contains(log, want) {
			t.Errorf("server log lacks %q; tail:\n%s", want, tail(log, 600))
		}
	}
	for _, l := range strings.Split(strings.TrimRight(log, "\n"), "\n") {
		if len([]rune(l)) > 300 {
			t.Errorf("a kept line has %d characters, want at most 300", len([]rune(l)))
		}
	}
	stillUsable(t, s)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
