package chat

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcp-host/mcp-host/protocol"
)

// A result of pretty-printed JSON keeps its lines and indentation, under
// the call's name, wrapped to the pane; what would drive the terminal is
// still removed (issue 36 item 1).
func TestJSONResultKeepsLines(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	m.width, m.run = 40, "r1"
	const path = "/a/very/long/path/that/does/not/fit/in/forty/columns"
	res := "{\n  \"name\": \"\x1b]0;PWNED\x07demo\x1b[31m\",\n  \"nested\": {\n    \"path\": \"" + path + "\"\n  }\n}\n"
	got := transcript(m, ev(protocol.EventToolResult, func(e *protocol.AgentEventParams) {
		e.Result = &protocol.ToolResult{Content: []protocol.Content{{Type: "text", Text: res}}}
	}))
	all := strings.Join(got, "\n")
	if strings.ContainsAny(all, "\x1b\x07") {
		t.Errorf("the result holds controls: %q", all)
	}
	want := []string{"← everything/echo: {", `    "name": "demo",`, `    "nested": {`, `      "path":`}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Fatalf("line %d is not %q:\n%s", i, w, all)
		}
	}
	var pieces []string
	for _, l := range got[len(want):] {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("a line of %d cells: %q", w, l)
		}
		if !strings.HasPrefix(l, "      ") && strings.TrimSpace(l) != "}" {
			t.Errorf("a line of the path is not under its member: %q", l)
		}
		pieces = append(pieces, strings.TrimSpace(l))
	}
	if joined := strings.Join(pieces, ""); !strings.Contains(joined, `"`+path+`"`) {
		t.Errorf("the path is not whole across its lines:\n%s", all)
	}
	if last := got[len(got)-1]; last != "  }" {
		t.Errorf("the last line is %q, want the closing brace under the head", last)
	}
}

// A long result is cut at maxResultLines lines, the rest counted.
func TestLongResultIsCounted(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	m.run = "r1"
	got := transcript(m, ev(protocol.EventToolResult, func(e *protocol.AgentEventParams) {
		e.Result = &protocol.ToolResult{Content: []protocol.Content{{Type: "text", Text: strings.Repeat("row\n", maxResultLines+5)}}}
	}))
	if len(got) != maxResultLines+1 || got[len(got)-1] != "  … 5 more lines" {
		t.Errorf("%d lines, the last %q", len(got), got[len(got)-1])
	}
}

// Tab's list of candidates is drawn under the input, not printed into
// the transcript, and is gone once the input changes or is sent (issue 36
// item 2).
func TestCompletionListIsTransient(t *testing.T) {
	m := layoutModel()
	list := func() {
		m.input.SetValue("/x:p name=")
		m.applyCompletion(completeMsg{input: "/x:p name=", from: 5, candidates: []string{"name=Eve", "name=Ed"}})
	}
	const listed = "name=Ed  name=Eve"
	m.out = nil
	list()
	if strings.Contains(strings.Join(m.out, "\n"), listed) {
		t.Errorf("the list went into the transcript: %q", m.out)
	}
	if !strings.Contains(m.View(), listed) {
		t.Fatalf("the list is not under the input:\n%s", m.View())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'v'}})
	if strings.Contains(m.View(), listed) {
		t.Errorf("the list stays once the input changed:\n%s", m.View())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	if strings.Contains(m.View(), listed) {
		t.Errorf("the list is back with the input it was for:\n%s", m.View())
	}
	list()
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if strings.Contains(m.View(), listed) || strings.Contains(strings.Join(m.out, "\n"), listed) {
		t.Errorf("the list stays once the input was sent:\n%s\n%q", m.View(), m.out)
	}
}

// An error whose message names its server and request twice (the
// runtime wraps a failed request's error in the same words) says them
// once (issue 36 item 3); other errors are left as they are.
func TestErrorContextSaidOnce(t *testing.T) {
	const uri = "demo://resource/static/document/x.md"
	for msg, want := range map[string]string{
		`server "everything": resources/read ` + uri + `: server "everything": resources/read "` + uri + `": calling "resources/read": MCP error -32602: Resource ` + uri + ` not found`: `failed: server "everything": resources/read "` + uri + `": calling "resources/read": MCP error -32602: Resource ` + uri + ` not found`,
		`server "a\"b": prompts/get p: server "a\"b": prompts/get "p": boom`:              `failed: server "a\"b": prompts/get "p": boom`,
		`server "everything": resources/read x: server "notes": resources/read "x": boom`: `failed: server "everything": resources/read x: server "notes": resources/read "x": boom`,
		`server "everything": resources/read x: connection closed`:                        `failed: server "everything": resources/read x: connection closed`,
	} {
		if got := describeErr(&protocol.Error{Code: protocol.CodeFailed, Message: msg}); got != want {
			t.Errorf("describeErr(%q)\n = %q\nwant %q", msg, got, want)
		}
	}
}
