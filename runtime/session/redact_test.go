package session_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// noneOf fails if any secret is in text.
func noneOf(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s shows %q: %s", what, s, text)
		}
	}
}

// Secrets in the URL (expanded ${VAR} values under any parameter name, user
// info) never reach an error the session returns, even when nobody
// registered them: Go's *url.Error quotes the whole URL.
func TestErrorsQuoteNoURLSecrets(t *testing.T) {
	secrets := []string{"qv-Zr81kQ", "pw-Lm55xT", "ak-Vb90pW"}
	// Nothing listens on port 1: the connect fails in the dial.
	_, err := session.Connect(context.Background(), session.Options{
		ID: "dead", URL: "http://user:pw-Lm55xT@127.0.0.1:1/mcp?k=qv-Zr81kQ&api_key=ak-Vb90pW", ConnectTimeout: 3 * time.Second, NoSSEFallback: true,
	})
	if err == nil {
		t.Fatal("connected to nothing")
	}
	t.Log(err)
	noneOf(t, "connect error", err.Error(), secrets...)
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("the error lost the server's address: %v", err)
	}

	// A server that goes away after the handshake: the call's error quotes
	// the POST's URL.
	ts := newTestServer(t)
	s := connect(t, session.Options{ID: "gone", URL: ts.url() + "/mcp?k=qv-Zr81kQ", RequestTimeout: 5 * time.Second})
	ts.http.CloseClientConnections()
	ts.http.Close()
	_, err = s.CallTool(context.Background(), "echo", map[string]any{"text": "x"})
	if err == nil {
		t.Fatal("a call to a closed server succeeded")
	}
	noneOf(t, "call error", err.Error(), secrets...)
	if lost := s.Err(); lost != nil {
		noneOf(t, "lost-connection error", lost.Error(), secrets...)
	}
}

// An extension call answered with an error page quotes a short, redacted
// excerpt of it: not 4 KiB, no configured header value, no token.
func TestExtensionCallErrorQuotesABoundedRedactedExcerpt(t *testing.T) {
	const headerValue = "hv-Q3wp9Xs7Yc"
	var page strings.Builder
	page.WriteString(`{"detail":"bad key ` + headerValue + `","access_token":"at-Jk42Hh"}`)
	page.WriteString(strings.Repeat("\x1b[31mfiller\u202e ", 600))
	h := newHostile(t, false, nil, func(w http.ResponseWriter, _ *http.Request, m rpcMsg) bool {
		if m.Method != "skills/list" {
			return false
		}
		http.Error(w, page.String(), http.StatusInternalServerError)
		return true
	})
	s := connect(t, session.Options{ID: "ext", URL: h.URL, Headers: map[string]string{"X-Api-Key": headerValue}})
	err := s.Call(context.Background(), "skills/list", map[string]any{}, nil)
	if err == nil {
		t.Fatal("the error page was taken for an answer")
	}
	msg := err.Error()
	t.Log(msg)
	noneOf(t, "extension call error", msg, headerValue, "at-Jk42Hh", "\x1b", "\u202e")
	if len(msg) > 400 {
		t.Errorf("error of %d bytes quotes too much of the body: %s", len(msg), msg)
	}
	if !strings.Contains(msg, "500") || !strings.Contains(msg, `server "ext"`) {
		t.Errorf("error lost the status or the server: %s", msg)
	}
}
