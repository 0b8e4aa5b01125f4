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
			Summary: "default: reads system, toolchains, own files; writes cwd ~/.cache/mcp-host/servers/files/work, temp /tmp/mcp-host-files-1234, private cache ~/.cache/mcp-host/servers/files, /home/me/notes (named in its config); network all; UNIX sockets none"}},
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

// A box too tall for the pane folds the sandbox's protection rows before
// it clips anything: at 60 columns by 40 rows the last error of a server
// the sandbox refused, with the refused path and the grant that would
// let it start, stays in the box, and so does the box's top border
// (issue 36 item 5).
func TestDetailFoldsProtectionsFirst(t *testing.T) {
	const notes = "/tmp/TestChatSandboxDetail6022531284/001/home/notes.txt"
	grant := `grant it with "sandbox": {"filesystem": {"read": ["` + notes + `"]}} (or "write")`
	d := protocol.ServerDetail{ServerStatus: protocol.ServerStatus{ID: "probe", Status: "error", Transport: "stdio", Source: "global",
		LastError: `server "probe": connect: process exited: exit status 1: connection closed: calling "initialize": client is closing: EOF; stderr: cat: ` + notes +
			`: Permission denied; the server gets only these environment variables: HOME, LANG, PATH, SHELL, TERM; pass more from the host's environment with "env_vars": ["NAME", ...] in the server's config, or set them in "env"; the sandbox denied ` + notes + `; if the server needs it, ` + grant,
		Sandbox: &protocol.SandboxStatus{Status: "active", Detail: "Landlock ABI 7",
			Summary: "strict: reads system, toolchains, own files; writes cwd ~/.cache/mcp-host/servers/probe/work, temp, /tmp/TestChatSandboxDetail6022531284/003/data; network none; UNIX sockets none",
			Protections: []string{"files: enforced (Landlock ABI 7: reads and writes by grant)",
				"UNIX sockets: enforced (the host's supervisor: only granted ones and its own; no datagram or abstract socket)",
				"terminal: enforced (a session of its own, no terminal device granted, TIOCSTI refused)",
				"network: enforced (TCP by Landlock, every other protocol refused by seccomp)",
				"signals: enforced (only its own processes)", "files that run code later: none in its writable places"}}},
		Command:     "/tmp/TestChatSandboxDetail6022531284/001/home/bin/server",
		Environment: &protocol.EnvironmentNames{Base: []string{"HOME", "LANG", "PATH", "SHELL", "TERM"}}}
	m := layoutModel()
	m.width, m.height = 59, 40
	m.servers = map[string]protocol.ServerStatus{"probe": d.ServerStatus}
	m.detail = renderDetail(d)
	lines := strings.Split(m.View(), "\n")
	if len(lines) > 40 || !strings.HasPrefix(lines[0], "╭") {
		t.Errorf("%d lines, or the top border is gone:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	squeezed := strings.Join(strings.Fields(strings.ReplaceAll(strings.Join(lines, ""), "│", "")), "")
	for _, want := range []string{"thesandboxdenied" + notes, strings.Join(strings.Fields(grant), ""), "networknone", "/tmp/TestChatSandboxDetail6022531284/003/data"} {
		if !strings.Contains(squeezed, want) {
			t.Errorf("the box lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if strings.Contains(squeezed, "morelines") {
		t.Errorf("the box was clipped:\n%s", strings.Join(lines, "\n"))
	}
}
