package chat

import (
	"fmt"
	"strconv"

	"github.com/mcp-host/mcp-host/protocol"
)

// progress records a server's progress report on the running call it
// names; the status line shows it (runLabel). Reports for calls that are
// not running are dropped.
func (m *Model) progress(e protocol.AgentEventParams) {
	if e.Call == nil || e.Progress == nil {
		return
	}
	c, ok := m.calls[e.Call.ID]
	if !ok {
		return
	}
	p := *e.Progress
	p.Message = line(p.Message)
	c.progress = &p
	m.calls[e.Call.ID] = c
}

// progressText shows a progress report after a running call: " · 3/4
// (75%) message", or "" when there is none.
func progressText(p *protocol.Progress) string {
	if p == nil {
		return ""
	}
	s := " · " + progressNum(p.Progress)
	if p.Total > 0 {
		s += "/" + progressNum(p.Total)
		if pct := p.Progress / p.Total * 100; pct >= 0 && pct <= 100 {
			s += fmt.Sprintf(" (%d%%)", int(pct))
		}
	}
	if p.Message != "" {
		s += " " + truncate(p.Message, 80)
	}
	return s
}

// progressNum shows a number briefly: 3, 2.5, 1e+300.
func progressNum(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
