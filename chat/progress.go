package chat

import (
	"fmt"
	"strconv"

	"github.com/mcp-host/mcp-host/protocol"
)

// progress records a server's progress report, or the state of the task
// it made of the call, on the running call it names; the status line
// shows it (runLabel). Reports for calls that are not running are
// dropped.
func (m *Model) progress(e protocol.AgentEventParams) {
	if e.Call == nil {
		return
	}
	c, ok := m.calls[e.Call.ID]
	if !ok {
		return
	}
	switch {
	case e.Progress != nil:
		p := *e.Progress
		p.Message = line(p.Message)
		c.progress = &p
	case e.Task != nil:
		t := protocol.TaskState{ID: line(e.Task.ID), Status: line(e.Task.Status), Message: line(e.Task.Message)}
		c.task = &t
	default:
		return
	}
	m.calls[e.Call.ID] = c
}

// taskText shows the state of the task a server made of a running call:
// " · task working: compiling", or "" when there is none.
func taskText(t *protocol.TaskState) string {
	if t == nil {
		return ""
	}
	s := " · task " + truncate(t.Status, 20)
	if t.Message != "" {
		s += ": " + truncate(t.Message, 80)
	}
	return s
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
