package chat

import (
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/mcp-host/mcp-host/protocol"
)

var layoutWidths = []int{60, 70, 100, 200, 250}

func sized(m *Model, w int) {
	m.update(tea_WindowSize(w, 40))
}

// tooWide returns the lines of s wider than width.
func tooWide(s string, width int) []string {
	var bad []string
	for _, l := range strings.Split(s, "\n") {
		if lipgloss.Width(l) > width {
			bad = append(bad, l)
		}
	}
	return bad
}

func layoutModel() *Model {
	return NewModel(&fakeRuntime{}, &protocol.InitializeResult{
		Capabilities: protocol.RuntimeCapabilities{Runs: true, Model: "scripted (script.json)"},
		Servers: []protocol.ServerStatus{
			{ID: "everything", Transport: "stdio", Source: "global", Enabled: true, State: protocol.StateReady, Tools: 15},
			{ID: "notes", Transport: "http", Source: "global", Enabled: true, State: protocol.StateAuthRequired, Auth: &protocol.AuthStatus{Detail: "not logged in"}},
			{ID: "a-rather-long-server-id", Transport: "sse", Source: "project", Enabled: true, State: protocol.StateConnecting},
		},
	})
}

// From 60 to 250 columns no line of the screen is wider than the
// terminal (a wider one wraps, and the next redraw leaves a stale line),
// and the /mcp table keeps what matters: ids, states and the auth column.
func TestLayoutFitsEveryWidth(t *testing.T) {
	for _, w := range layoutWidths {
		m := layoutModel()
		sized(m, w)
		typeLine(m, "/mcp")
		v := m.View()
		if bad := tooWide(v, w); len(bad) > 0 {
			t.Errorf("%d columns: lines too wide:\n%s", w, strings.Join(bad, "\n"))
		}
		for _, want := range []string{"everything", "auth_required", "not logged in", "a-rather-long-server-id", "servers: 1 ready, 1 auth_required", "model scripted"} {
			if !strings.Contains(v, want) {
				t.Errorf("%d columns: the screen lacks %q:\n%s", w, want, v)
			}
		}
		for _, l := range strings.Split(m.mcpTable(), "\n") {
			if strings.HasPrefix(l, "│") && !strings.HasSuffix(l, "│") {
				t.Errorf("%d columns: a table line is cut: %q", w, l)
			}
		}
	}
}

// /tools aligns its columns whatever the length of the names.
func TestToolsColumnsAligned(t *testing.T) {
	l := &protocol.ToolsListResult{Tools: []protocol.ToolInfo{
		{PublicName: "everything__echo", Server: "everything", Tool: "echo", Description: "Echoes back the input"},
		{PublicName: "a_very_long_server_name_indeed__get_tiny_image_with_a_long_name", Server: "a_very_long_server_name_indeed", Tool: "get_tiny_image_with_a_long_name", Description: "Returns a tiny image"},
		{PublicName: "x__y", Server: "x", Tool: "y", Description: "short"},
	}}
	for _, w := range layoutWidths {
		out := renderTools(l, w-4)
		if bad := tooWide(out, w-4); len(bad) > 0 {
			t.Errorf("%d columns: lines too wide:\n%s", w, strings.Join(bad, "\n"))
		}
		lines := strings.Split(out, "\n")
		if !strings.HasPrefix(lines[0], "SERVER/TOOL") || !strings.HasPrefix(lines[len(lines)-1], "3 tools") {
			t.Errorf("%d columns: the tool is not first, or the count not last:\n%s", w, out)
		}
		col := strings.Index(lines[0], "DESCRIPTION")
		for _, line := range lines[1 : len(lines)-1] {
			r := []rune(line)
			if col < 2 || len(r) <= col || r[col-1] != ' ' || r[col] == ' ' {
				t.Errorf("%d columns: the description column is not at %d:\n%s", w, col, out)
				break
			}
		}
		if w <= 60 && strings.Contains(out, "everything__echo") {
			t.Errorf("%d columns: the model's names take the room of the tools':\n%s", w, out)
		}
		if w >= 200 && !strings.Contains(out, "a_very_long_server_name_indeed/get_tiny_image_with_a_long_name") {
			t.Errorf("%d columns: a long name is cut:\n%s", w, out)
		}
	}
}

// Long transcript lines wrap at word boundaries, to the terminal's width;
// a URL (no spaces) is left whole for the terminal to fold, so that it
// can still be copied.
func TestTranscriptWrapsAtWords(t *testing.T) {
	m := layoutModel()
	sized(m, 60)
	m.out = nil
	m.addLine(strings.Repeat("wording ", 30))
	url := "http://127.0.0.1:1234/authorize?" + strings.Repeat("state=abcdef&", 10)
	m.addLine(url)
	out := m.printable()
	for _, l := range strings.Split(out, "\n") {
		if l == url+"\x1b[K" {
			continue
		}
		if lipgloss.Width(l) > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
		if !regexp.MustCompile(`^(wording ?)*$`).MatchString(strings.TrimSpace(l)) {
			t.Errorf("a word was cut: %q", l)
		}
	}
	if !strings.Contains(out, url+"\x1b[K") {
		t.Errorf("the URL was broken, or is not followed by an erase of the rest of its last row:\n%q", out)
	}
}

// The login's paste-back screen keeps its box and the whole instruction
// at 60 columns.
func TestPasteBackScreenIntact(t *testing.T) {
	m := layoutModel()
	sized(m, 60)
	m.update(askMsg{prompt: &protocol.PromptParams{Title: "Log in to notes",
		Message: "No browser could be opened. Open the URL printed above in any browser, log in, then paste the address the browser ends on (it starts with http://127.0.0.1) below.",
		URL:     "http://127.0.0.1:1234/authorize?client_id=abc&state=xyz"}, reply: make(chan answer, 1)})
	v := m.View()
	if bad := tooWide(v, 60); len(bad) > 0 {
		t.Errorf("lines too wide:\n%s", strings.Join(bad, "\n"))
	}
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(l, "│") != strings.HasSuffix(l, "│") {
			t.Errorf("a stray border: %q", l)
		}
	}
	for _, want := range []string{"paste the address here (Esc cancels)", "below."} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
}

func tea_WindowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// At 60 columns a tool call's and a tool result's lines break at spaces:
// every word that fits the width stays whole on one line, and only a
// word wider than the width (a path, a run of JSON) is broken, at the
// width, so no line is left for the terminal to fold inside a word.
func TestToolLinesBreakAtSpaces(t *testing.T) {
	m := layoutModel()
	sized(m, 60)
	m.run = "r1"
	long := "/home/someone/projects/a/rather/deep/tree/of/folders/and/a/file-name.txt"
	text := "Wrote the file " + long + " and then checked that every byte of it reads back the same, twice"
	m.out = nil
	m.event(protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: &protocol.ToolCallInfo{ID: "c1", Server: "files", Tool: "write", Arguments: []byte(`{"path":"` + long + `","content":"hello there"}`)}})
	m.event(protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolResult, Call: &protocol.ToolCallInfo{ID: "c1", Server: "files", Tool: "write"}, Result: &protocol.ToolResult{Content: []protocol.Content{{Type: "text", Text: text}}}})
	out := m.printable()
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		if w := lipgloss.Width(l); w > m.width {
			t.Errorf("a line of %d cells, wider than %d: the terminal folds it inside a word: %q", w, m.width, l)
		}
	}
	words := map[string]bool{}
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			words[w] = true
		}
	}
	for _, w := range strings.Fields(text) {
		if len(w) <= m.width && !words[w] {
			t.Errorf("the word %q is broken across lines:\n%s", w, out)
		}
	}
	if !strings.Contains(strings.ReplaceAll(out, "\n", ""), long) {
		t.Errorf("the long path is not all there:\n%s", out)
	}
}
