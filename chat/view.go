package chat

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/termsafe"
)

// mcpTable renders the live /mcp view, its columns chosen for the width.
func (m *Model) mcpTable() string {
	ids := make([]string, 0, len(m.servers))
	for id := range m.servers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	cols := []column{{head: "ID", min: 8}, {head: "TRANSPORT", drop: 2}, {head: "SOURCE", drop: 3}, {head: "ENABLED", drop: 4},
		{head: "STATE"}, {head: "TOOLS", drop: 1}, {head: "AUTH", min: 6}}
	for _, id := range ids {
		st := m.servers[id]
		state := st.Status
		if state == protocol.StateConnecting {
			state = m.spin.View() + " " + state
		}
		if st.Cached {
			// Not running: the tools are those kept from its last run.
			state += " (cached)"
		}
		for i, v := range []string{id, st.Transport, st.Source, fmt.Sprint(st.Enabled), state, fmt.Sprint(st.Tools), truncate(authText(st), 40)} {
			cols[i].cells = append(cols[i].cells, v)
		}
	}
	table := renderTable(cols, max(m.width, minWidth)-4)
	// A server the managed policy blocks: the rule, under the table.
	for _, id := range ids {
		if p := m.servers[id].Policy; p != nil {
			table += "\n" + wrapHard(fmt.Sprintf("%s: blocked_by_policy: %s: %s (%s)", id, p.Rule, p.Reason, p.File), max(m.width, minWidth)-4)
		}
	}
	return styleBox.Render(table)
}

// View draws the screen.
func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	var head, footer []string
	if m.showMCP {
		head = append(head, m.mcpTable())
	}
	if m.ask != nil {
		footer = append(footer, m.askView())
		if n := m.typedNote(); n != "" {
			footer = append(footer, n)
		}
	} else if m.approving != "" {
		footer = append(footer, m.approvalView())
	}
	footer = append(footer, m.repeatLines()...)
	footer = append(footer, m.statusLine(), m.input.View())
	if list := m.candidatesView(); list != "" {
		footer = append(footer, list)
	}
	// The answer in progress: its last lines, above the footer.
	var stream []string
	if m.stream != "" {
		stream = strings.Split(wrapHard(m.streamText(), m.width), "\n")
		if room := m.height/2 - 1; room > 0 && len(stream) > room {
			stream = stream[len(stream)-room:]
		}
	}
	if m.detail != "" {
		// As tall as the pane leaves room for, with what else is drawn
		// (detail.go).
		used := len(stream) + lineCount(head) + lineCount(footer)
		head = append(head, m.detailBox(m.height-used))
	}
	foot := fit(strings.Join(append(head, footer...), "\n"), m.width)
	if len(stream) == 0 {
		return foot
	}
	return strings.Join(stream, "\n") + "\n" + foot
}

// lineCount is how many lines parts take, each part one or more lines.
func lineCount(parts []string) int {
	n := 0
	for _, p := range parts {
		n += strings.Count(p, "\n") + 1
	}
	return n
}

func (m *Model) statusLine() string {
	if m.quitArmed() {
		return styleWarn.Render("press Ctrl+C again to quit")
	}
	counts := map[string]int{}
	var connecting []string
	for id, st := range m.servers {
		counts[st.Status]++
		if st.Status == protocol.StateConnecting {
			connecting = append(connecting, id)
		}
	}
	sort.Strings(connecting)
	parts := []string{fmt.Sprintf("%d ready", counts[protocol.StateReady])}
	for _, s := range []string{protocol.StateIdle, protocol.StateApprovalRequired, protocol.StateAuthRequired, protocol.StateError, protocol.StateBlockedByPolicy, protocol.StateDisabled} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	line := "servers: " + strings.Join(parts, ", ")
	var busy []string
	if len(connecting) > 0 {
		busy = append(busy, "connecting "+strings.Join(connecting, ", "))
	}
	keys := make([]string, 0, len(m.waiting))
	for k := range m.waiting {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "run" {
			busy = append(busy, m.runLabel())
			continue
		}
		busy = append(busy, m.waiting[k])
	}
	if _, running := m.waiting["run"]; !running && (m.ask != nil || m.approving != "") {
		busy = append(busy, "waiting for your answer")
	}
	if m.model != "" {
		line += "  · model " + m.model
	}
	if ts := m.toolSearchLabel(); ts != "" {
		line += "  · " + ts
	}
	if len(busy) == 0 {
		return styleDim.Render(line)
	}
	// What it waits for goes on the line when it fits, else on its own.
	doing := m.spin.View() + " " + strings.Join(busy, "; ")
	if ansi.StringWidth(line)+2+ansi.StringWidth(doing) <= max(m.width, minWidth) {
		return styleDim.Render(line + "  " + doing)
	}
	return styleDim.Render(line) + "\n" + styleDim.Render(doing)
}

// runLabel says what the run in progress waits for: the person's
// answer, its tool calls (with how long they have run), or the model.
func (m *Model) runLabel() string {
	if m.ask != nil {
		return "waiting for your answer"
	}
	if len(m.calls) == 0 {
		return "thinking"
	}
	ids := make([]string, 0, len(m.calls))
	for id := range m.calls {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return m.calls[ids[i]].start.Before(m.calls[ids[j]].start) })
	var parts []string
	for _, id := range ids {
		c := m.calls[id]
		parts = append(parts, fmt.Sprintf("running %s %ds%s", c.origin, int(m.now().Sub(c.start).Seconds()), progressText(c.progress)+taskText(c.task)))
	}
	return strings.Join(parts, ", ")
}

func origin(c *protocol.ToolCallInfo) string {
	if c == nil {
		return "?"
	}
	if c.Server != "" {
		return c.Server + "/" + c.Tool
	}
	return c.PublicName
}

// compact shows a tool call's raw arguments on one line of at most 200
// runes.
func compact(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	return truncate(s, 200)
}

// truncate renders s as one terminal-safe line of at most n runes.
func truncate(s string, n int) string { return termsafe.LineMax(s, n) }

// resultText is a result's content as text: its parts joined by a space,
// or by a newline when one of them has several lines.
func resultText(r protocol.ToolResult) string {
	var parts []string
	sep := " "
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
			if strings.Contains(c.Text, "\n") {
				sep = "\n"
			}
		} else {
			parts = append(parts, "["+c.Type+"]")
		}
	}
	return strings.Join(parts, sep)
}

// describeErr names a protocol error's code.
func describeErr(err error) string {
	var perr *protocol.Error
	if e, ok := err.(*protocol.Error); ok {
		perr = e
	}
	if perr == nil {
		return "error: " + line(saidOnce(err.Error()))
	}
	names := map[int64]string{
		protocol.CodeUnknownServer: "unknown server", protocol.CodeNotReady: "not ready", protocol.CodeDenied: "denied",
		protocol.CodeNoModel: "no model", protocol.CodeCancelled: "cancelled", protocol.CodeInvalidParams: "invalid",
		protocol.CodeUnknownRun: "no such run", protocol.CodeFailed: "failed",
	}
	name := names[perr.Code]
	if name == "" {
		name = "error " + strconv.FormatInt(perr.Code, 10)
	}
	return name + ": " + line(saidOnce(perr.Message))
}

// errContext is the context an error of the runtime opens with: the
// server and the request ("server \"everything\": resources/read").
var errContext = regexp.MustCompile(`^server "(?:[^"\\]|\\.)*": [^ :]+`)

// saidOnce drops an error's opening context when the rest of the message
// opens with it again: the runtime wraps a failed request's error, which
// already names its server and request, in the same words (a missing
// resource read "server \"everything\": resources/read URI: server
// \"everything\": resources/read \"URI\": …"). The inner one is kept.
func saidOnce(s string) string {
	for {
		head := errContext.FindString(s)
		if head == "" {
			return s
		}
		i := strings.Index(s[len(head):], ": "+head)
		if i < 0 {
			return s
		}
		s = s[len(head)+i+2:]
	}
}
