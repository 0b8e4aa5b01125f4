package permission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostile is text a server could put in a title to spoof or hide what the
// confirm shows: cursor movement, a pane title, BEL, a bidi override, a
// zero-width space and a tag character.
const hostile = "\x1b[1A\x1b[2K\x1b]0;PWNED\x07Delete\u202E\u200B everything\U000E0041\a"

// TestRequestTextIsTerminalSafe: every server-controlled string of a confirm
// request is stripped of controls, escape sequences, bidi and invisible
// characters, the arguments included.
func TestRequestTextIsTerminalSafe(t *testing.T) {
	rec := &recorder{answers: []Response{{Answer: AllowOnce}}}
	g := mustGate(t, Options{Confirmer: rec})
	tool := newTool(t, "srv", &mcp.Tool{Name: "del", Title: hostile, Annotations: &mcp.ToolAnnotations{Title: hostile}})
	g.Check(context.Background(), tool, json.RawMessage("{\"note\":\"a\u202Eb\u200Bc\"}"))
	r := rec.seen[0]
	for field, s := range map[string]string{"title": r.Title, "annotations title": r.Annotations.Title, "arguments": r.Arguments} {
		for _, c := range s {
			if c == 0x1b || c == 0x07 || termsafe.IsUnsafe(c) {
				t.Errorf("%s %q holds %U", field, s, c)
			}
		}
	}
	if r.Title != "Delete everything" {
		t.Errorf("title = %q", r.Title)
	}
	if !strings.Contains(r.Arguments, `"note": "abc"`) {
		t.Errorf("arguments = %q", r.Arguments)
	}
}
