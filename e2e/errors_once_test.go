package e2e_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestPrimitiveErrorsSayContextOnce (issue 36): through host serve with
// the real server-everything, the JSON-RPC error of resources.read of a
// missing resource and of prompts.get of a missing prompt names the server
// and the request once each, then what the server said. Before, the
// runtime wrapped the session's error, which already opens with them, in
// the same words: `server "everything": resources/read URI: server
// "everything": resources/read "URI": …`.
func TestPrimitiveErrorsSayContextOnce(t *testing.T) {
	h, _, prim := startPrimitives(t, protocol.UICapabilities{MCPPrompts: true})
	ctx := ctxT(t, time.Minute)

	const uri = "demo://resource/static/document/no-such-file.md"
	_, err := prim.ResourcesRead(ctx, &protocol.ResourceParams{Server: "everything", URI: uri})
	checkOnce(t, "resources.read", err, `server "everything": resources/read "`+uri+`": `, "resources/read")

	_, err = prim.PromptsGet(ctx, &protocol.PromptsGetParams{Server: "everything", Name: "no-such-prompt"})
	checkOnce(t, "prompts.get", err, `server "everything": prompts/get "no-such-prompt": `, "prompts/get")

	// The error answers on the wire are failed (the server could not do it).
	for id, codes := range h.answers(t) {
		for _, c := range codes {
			if c != protocol.CodeFailed {
				t.Errorf("answer %s: code %d, want %d", id, c, protocol.CodeFailed)
			}
		}
	}
}

// checkOnce checks that err is a failed protocol error whose message opens
// with head, names the server and method once, and goes on to say more.
func checkOnce(t *testing.T, what string, err error, head, method string) {
	t.Helper()
	var perr *protocol.Error
	if !errors.As(err, &perr) {
		t.Fatalf("%s: err = %v (%T), want a protocol error", what, err, err)
	}
	msg := perr.Message
	t.Logf("%s: %s", what, msg)
	if perr.Code != protocol.CodeFailed {
		t.Errorf("%s: code %d, want %d (failed)", what, perr.Code, protocol.CodeFailed)
	}
	if !strings.HasPrefix(msg, head) {
		t.Errorf("%s: message %q does not open with %q", what, msg, head)
	}
	if n := strings.Count(msg, `server "everything"`); n != 1 {
		t.Errorf("%s: message names the server %d times, want once: %q", what, n, msg)
	}
	if n := strings.Count(msg, method); n != 1 {
		t.Errorf("%s: message names %s %d times, want once: %q", what, method, n, msg)
	}
	if len(msg) <= len(head) {
		t.Errorf("%s: message %q says nothing after its context", what, msg)
	}
	if d := protocol.DataOf(err); d.Server != "everything" {
		t.Errorf("%s: data.server = %q, want everything", what, d.Server)
	}
}
