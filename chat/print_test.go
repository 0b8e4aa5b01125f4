package chat

import (
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mcp-host/mcp-host/protocol"
)

// unfairProgram plays the bubbletea program against the model: messages
// go through Update, and the commands they return run later, the newest
// first, as the program's goroutines may. A sequence's commands run in
// order, each message sent before the next runs, as the program does.
type unfairProgram struct {
	m       *Model
	pending []tea.Cmd
	printed []string
}

var cmdType = reflect.TypeOf(tea.Cmd(nil))

func (p *unfairProgram) send(msg tea.Msg) {
	if msg == nil {
		return
	}
	v := reflect.ValueOf(msg)
	switch {
	case v.Type().Name() == "printLineMessage":
		p.printed = append(p.printed, strings.Split(v.FieldByName("messageBody").String(), "\n")...)
	case v.Kind() == reflect.Slice && v.Type().Elem() == cmdType:
		// tea.Sequence's (and tea.Batch's) commands, one after another.
		for i := range v.Len() {
			if c, _ := v.Index(i).Interface().(tea.Cmd); c != nil {
				p.send(c())
			}
		}
	default:
		_, cmd := p.m.Update(msg)
		if cmd != nil {
			p.pending = append(p.pending, cmd)
		}
	}
}

// settle runs the pending commands, the newest first, until none is
// left.
func (p *unfairProgram) settle(t *testing.T) {
	for n := 0; len(p.pending) > 0; n++ {
		if n > 1000 {
			t.Fatal("the commands do not settle")
		}
		c := p.pending[len(p.pending)-1]
		p.pending = p.pending[:len(p.pending)-1]
		p.send(c())
	}
}

// A step's text, its two calls and their results are printed in the
// order the runtime sent them, even when the program runs the newest
// command first (issue 36 item 4: a call line came above the text).
func TestTranscriptPrintsInOrder(t *testing.T) {
	m := newTestModel(&fakeRuntime{})
	m.run = "r1"
	p := &unfairProgram{m: m}
	p.send(tea.WindowSizeMsg{Width: 100, Height: 40})
	p.settle(t) // the opening lines
	p.printed = nil
	call := func(id string, sum int) *protocol.ToolCallInfo {
		return &protocol.ToolCallInfo{ID: id, Server: "everything", Tool: "get-sum", Arguments: []byte(`{"a":` + string(rune('0'+sum)) + `}`)}
	}
	c1, c2 := call("c1", 1), call("c2", 2)
	result := func(c *protocol.ToolCallInfo, text string) eventMsg {
		return eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolResult, Call: c,
			Result: &protocol.ToolResult{Content: []protocol.Content{{Type: "text", Text: text}}}}}
	}
	for _, msg := range []tea.Msg{
		eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: "Adding "}},
		eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventTextDelta, Text: "them now."}},
		eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: c1}},
		eventMsg{protocol.AgentEventParams{RunID: "r1", Type: protocol.EventToolCall, Call: c2}},
		result(c2, "sum two"),
		result(c1, "sum one"),
	} {
		p.send(msg)
	}
	p.settle(t)
	want := []string{"Adding them now.", `→ everything/get-sum {"a":1}`, `→ everything/get-sum {"a":2}`, "← everything/get-sum: sum two", "← everything/get-sum: sum one"}
	var got []string
	for _, l := range p.printed {
		if l = strings.TrimSpace(l); l != "" {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("printed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
