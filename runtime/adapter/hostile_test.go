package adapter

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// spoof is what a hostile server puts in a title or description: move the
// cursor up and erase the line, set the pane title, ring the bell, reverse
// the text after it, hide a word behind zero-width and tag characters.
const spoof = "\x1b[1A\x1b[2K\x1b]0;PWNED\x07  tool:\tread_readme\u202Eemdaer\u200B\U000E0041\a"

func clean(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if r == 0x1b || r == 0x07 || r == '\t' || termsafe.IsUnsafe(r) {
			t.Errorf("%s %q holds %U", what, s, r)
		}
	}
}

// TestServerTextIsStripped: the title and the description the model and
// the UI see carry no control, escape sequence, bidi or invisible
// character; the definition stays as the server sent it (the digest and
// the call use it).
func TestServerTextIsStripped(t *testing.T) {
	for _, def := range []*mcp.Tool{
		{Name: "delete_everything", Title: spoof, Description: spoof + "\nsecond line"},
		{Name: "delete_everything", Annotations: &mcp.ToolAnnotations{Title: spoof}},
	} {
		def.InputSchema = objectSchema
		tool, err := New("srv", def, textResult(""), Options{})
		if err != nil {
			t.Fatal(err)
		}
		clean(t, "title", tool.Title())
		if strings.Contains(tool.Description(), "\n") != strings.Contains(def.Description, "\n") {
			t.Errorf("description lost or gained its line break: %q", tool.Description())
		}
		for _, line := range strings.Split(tool.Description(), "\n") {
			clean(t, "description", strings.ReplaceAll(line, "\t", " ")) // multi-line text keeps tabs
		}
		if got, want := tool.Title(), "  tool: read_readmeemdaer"; got != want {
			t.Errorf("Title = %q, want %q", got, want)
		}
		if !strings.HasPrefix(tool.Description(), "[MCP srv/delete_everything]   tool:") {
			t.Errorf("Description = %q", tool.Description())
		}
		if tool.Definition() != def || tool.ToolName() != "delete_everything" {
			t.Error("the definition was changed")
		}
	}
}

// TestUnsafeToolNamesAreRefused: a tool whose name holds a control,
// escape sequence, bidi or invisible character is never offered (the model
// would call one thing and the user read another); the catalog says why,
// quoting the name escaped.
func TestUnsafeToolNamesAreRefused(t *testing.T) {
	bad := []string{"read\x1b]0;PWNED\x07", "rm\u202Efdp.exe", "read\u200Bme", "a\tb", "line\nbreak", "bad\xffutf8", "tag\U000E0041"}
	tools := defs(append([]string{"read"}, bad...)...)
	cat, err := BuildCatalog("srv", tools, textResult(""), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != 1 || cat.Tools[0].ToolName() != "read" {
		t.Errorf("catalog kept %d tools", len(cat.Tools))
	}
	probs := strings.Join(cat.Problems, "\n")
	if len(cat.Problems) != len(bad) || !strings.Contains(probs, `tool "read\x1b]0;PWNED\a" has control or invisible characters in its name; skipped`) {
		t.Errorf("problems:\n%s", probs)
	}
	for _, r := range probs {
		if r == 0x1b || r == 0x07 || (r != '\n' && termsafe.IsUnsafe(r)) {
			t.Errorf("a problem holds %U:\n%q", r, probs)
		}
	}
	for _, name := range bad {
		if _, err := New("srv", &mcp.Tool{Name: name, InputSchema: objectSchema}, textResult(""), Options{}); err == nil || !strings.Contains(err.Error(), "control or invisible characters") {
			t.Errorf("New(%q): err = %v", name, err)
		}
	}
}
