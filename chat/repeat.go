package chat

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcp-host/mcp-host/protocol"
)

// A server that keeps failing sends the same error on every retry (and
// the same log line). The transcript shows it once; the screen shows it
// with a count until the server is ready, is removed, or says something
// else.

// maxRepeatLines bounds the repeat lines the screen shows.
const maxRepeatLines = 3

// repeat is a line already printed for a server and how often it came.
type repeat struct {
	text  string
	count int
}

// once prints text for server unless it is what key last printed; it
// counts the repeats instead. key names the source (status or log line).
func (m *Model) once(server, key, text string, print func(string)) {
	if m.repeats == nil {
		m.repeats = map[string]map[string]*repeat{}
	}
	byKey := m.repeats[server]
	if byKey == nil {
		byKey = map[string]*repeat{}
		m.repeats[server] = byKey
	}
	if r := byKey[key]; r != nil && r.text == text {
		r.count++
		return
	}
	byKey[key] = &repeat{text: text, count: 1}
	print(text)
}

// serverProblem reports a server in error or waiting for a login, once
// per distinct message.
func (m *Model) serverProblem(st protocol.ServerStatus) {
	if st.Status != protocol.StateError && st.Status != protocol.StateAuthRequired {
		return
	}
	line := fmt.Sprintf("%s: %s", st.ID, st.Status)
	if st.LastError != "" {
		line += " — " + st.LastError
	}
	if st.Status == protocol.StateAuthRequired {
		line += "  (/login " + st.ID + ")"
	}
	m.once(st.ID, "status", line, func(s string) { m.addLine(styleWarn.Render(s)) })
}

// forgetRepeats ends the counting for server (ready again, or removed).
func (m *Model) forgetRepeats(server string) { delete(m.repeats, server) }

// repeatLines are the lines that came more than once, cut to the
// width so that their counts show.
func (m *Model) repeatLines() []string {
	var lines []string
	for _, byKey := range m.repeats {
		for _, r := range byKey {
			if r.count > 1 {
				count := fmt.Sprintf(" (×%d)", r.count)
				lines = append(lines, ansi.Truncate(r.text, max(m.width, minWidth)-ansi.StringWidth(count), "…")+count)
			}
		}
	}
	sort.Strings(lines)
	if len(lines) > maxRepeatLines {
		lines = append(lines[:maxRepeatLines], fmt.Sprintf("… %d more repeated lines", len(lines)-maxRepeatLines))
	}
	for i, l := range lines {
		lines[i] = styleWarn.Render(strings.TrimSpace(l))
	}
	return lines
}
