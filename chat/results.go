package chat

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/termsafe"
)

// What happened to a tool call is said once, in words: a denial is one
// line ("everything/echo: denied (reason)"), whether the person denied
// it here or a rule did, and the error result the model receives for it
// is not repeated; a call ended by a cancel says "cancelled", not the
// error chain behind it; a run's error is not printed again as its
// status.

// runOutcome is what the run in progress already said.
type runOutcome struct {
	// denied counts, per server/tool, the denials the person gave here
	// and the transcript already shows.
	denied map[string]int
	// skip holds the calls whose error result must not be shown.
	skip map[string]bool
	// cancelling: the person asked to cancel the run.
	cancelling bool
	// errors are the run's error events already printed.
	errors map[string]bool
}

func (o *runOutcome) answeredDeny(origin string) {
	if o.denied == nil {
		o.denied = map[string]int{}
	}
	o.denied[origin]++
}

func (o *runOutcome) error(text string) {
	if o.errors == nil {
		o.errors = map[string]bool{}
	}
	o.errors[text] = true
}

// printed reports whether an error event of the run already said err
// (the run's status may wrap it).
func (o *runOutcome) printed(err string) bool {
	for e := range o.errors {
		if e != "" && (err == e || strings.HasSuffix(err, ": "+e)) {
			return true
		}
	}
	return false
}

// decidedDeny shows a denial the transcript does not show yet, and
// hides the call's error result.
func (m *Model) decidedDeny(e protocol.AgentEventParams) {
	o := &m.outcome
	if e.Call != nil {
		if o.skip == nil {
			o.skip = map[string]bool{}
		}
		o.skip[e.Call.ID] = true
		delete(m.calls, e.Call.ID)
	}
	name := origin(e.Call)
	if o.denied[name] > 0 {
		o.denied[name]--
		return
	}
	line := name + ": denied"
	if why := denyReason(e.Reason); why != "" {
		line += " (" + why + ")"
	}
	m.addLine(styleWarn.Render(line))
}

// denyReason is the runtime's reason without the words that repeat
// "denied".
func denyReason(r string) string {
	r = strings.TrimSpace(r)
	for _, p := range []string{"denied by user:", "denied:", "denied"} {
		if rest, ok := strings.CutPrefix(r, p); ok {
			return strings.TrimSpace(rest)
		}
	}
	return r
}

// Bounds of a tool result in the transcript: its first lines, each cut
// at a width in runes; the lines left out are counted.
const (
	maxResultLines = 20
	maxResultLine  = 300
)

// toolResult shows a call's result under "← server/tool: ", its lines
// kept (pretty-printed JSON stays readable) and wrapped to the pane.
func (m *Model) toolResult(e protocol.AgentEventParams) {
	if e.Result == nil {
		return
	}
	if e.Call != nil && m.outcome.skip[e.Call.ID] {
		return
	}
	text, style := resultText(*e.Result), styleDim
	if e.Result.IsError {
		style = styleErr
		if m.outcome.cancelling {
			text, style = "cancelled", styleWarn
		}
	}
	m.addLine(resultLines(fmt.Sprintf("← %s: ", origin(e.Call)), text, style, m.width))
}

// resultLines renders a result's text after head: each of its lines made
// safe and cut at maxResultLine runes, the following ones indented by two
// spaces under the head (their own indentation kept), at most
// maxResultLines of them, wrapped to width and styled line by line (a
// style over several lines would pad them to one width).
func resultLines(head, text string, style lipgloss.Style, width int) string {
	text = strings.ReplaceAll(termsafe.TextMax(text, -1), "\t", "    ")
	lines := strings.Split(strings.TrimRight(strings.TrimLeft(text, "\n"), " \n"), "\n")
	more := 0
	if len(lines) > maxResultLines {
		more = len(lines) - maxResultLines
		lines = lines[:maxResultLines]
	}
	for i, l := range lines {
		l = strings.TrimRight(truncate(l, maxResultLine), " ")
		if i == 0 {
			lines[i] = head + l
		} else {
			lines[i] = "  " + l
		}
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("  … %d more lines", more))
	}
	return styleLines(style, wrapBreak(strings.Join(lines, "\n"), width))
}
