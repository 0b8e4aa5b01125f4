package chat

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcp-host/mcp-host/protocol"
)

// /mcp <id> shows a stdio server's sandbox on one line, the policy's
// paths (which a project file may write) escaped.
func TestDetailShowsSandbox(t *testing.T) {
	d := protocol.ServerDetail{ServerStatus: protocol.ServerStatus{ID: "files", Status: "ready",
		Sandbox: &protocol.SandboxStatus{Status: "active", Detail: "Landlock ABI 7", Summary: "strict: reads system, own files, /data\x1b]0;PWNED\x07; writes temp; network none"}}}
	cleanDetail(&d)
	out := renderDetail(d)
	if !strings.Contains(out, "sandbox:           active (Landlock ABI 7); strict: reads system, own files, /data") {
		t.Errorf("detail:\n%s", out)
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\x07") {
		t.Errorf("detail holds controls: %q", out)
	}
}

// At 60 columns /mcp <id> wraps every row under its value (the sandbox's
// reads, writes with their real paths, network; the last error; the
// stderr tail) instead of cutting it, and a box taller than the pane keeps
// its top border on screen.
func TestDetailWrapsAt60Columns(t *testing.T) {
	d := protocol.ServerDetail{ServerStatus: protocol.ServerStatus{ID: "files", Status: "error",
		LastError: "server \"files\": connect: connection closed; stderr: Error: EACCES: permission denied, open '/home/me/notes/x.json'; the sandbox denied /home/me/notes/x.json",
		Sandbox: &protocol.SandboxStatus{Status: "active", Detail: "Landlock ABI 7",
			Summary: "default: reads system, toolchains, own files; writes cwd ~/.cache/mcp-host/servers/files/work, temp, private cache, /home/me/notes (named in its config); network all; UNIX sockets none"}},
		Stderr: "Error: EACCES: permission denied, open '/home/me/notes/x.json'\n    at Object.openSync (node:fs:573:18)"}
	m := &Model{width: 60, height: 60}
	m.detail = renderDetail(d)
	view := m.View()
	for _, l := range strings.Split(view, "\n") {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("a line of %d cells: %q", w, l)
		}
		if strings.Contains(l, "…") {
			t.Errorf("a cut line: %q", l)
		}
	}
	flat := strings.Join(strings.Fields(strings.ReplaceAll(view, "│", " ")), " ")
	for _, want := range []string{"/home/me/notes (named in its config)", "network all; UNIX sockets none", "~/.cache/mcp-host/servers/files/work", "the sandbox denied /home/me/notes/x.json", "stderr (tail):"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the view lacks %q:\n%s", want, view)
		}
	}
	short := &Model{width: 60, height: 12}
	short.detail = m.detail
	lines := strings.Split(short.View(), "\n")
	if len(lines) > 12 || !strings.HasPrefix(lines[0], "╭") {
		t.Errorf("a box taller than the pane (%d lines), or its top border is gone:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

// /help at 100 columns continues each description under itself.
func TestHelpHangingIndent(t *testing.T) {
	out := wrapHelp(help, 100)
	lines := strings.Split(out, "\n")
	found := false
	for i, l := range lines {
		if ansi.StringWidth(l) > 100 {
			t.Errorf("a line of %d cells: %q", ansi.StringWidth(l), l)
		}
		if strings.HasPrefix(l, "  /mcp <id>") && i+1 < len(lines) {
			next := lines[i+1]
			found = strings.HasPrefix(next, strings.Repeat(" ", helpColumn)) && !strings.HasPrefix(next, strings.Repeat(" ", helpColumn+1))
		}
	}
	if !found {
		t.Errorf("/mcp <id>'s description does not continue at column %d:\n%s", helpColumn, out)
	}
}
