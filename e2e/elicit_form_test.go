package e2e_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// An elicitation answer that does not match the server's form is not sent
// to the server (the SDK refused it, and the server got an error the user
// never saw): the UI is asked again with the fields that failed and its
// last answer, and a valid second answer reaches the server. Answers that
// never match end after protocol.MaxElicitAsks asks with cancel for the
// server and a log warning naming the field (issue 13 item 7).
func TestProtocolElicitationInvalidAnswer(t *testing.T) {
	g := startGaps(t, protocol.UICapabilities{Confirm: true, Elicit: true}, nil, "--allow", "everything/trigger-elicitation-request")
	var mu sync.Mutex
	var asks []protocol.ElicitParams
	answers := []map[string]any{{"integer": 500}, {"name": "Ada", "integer": 7}}
	g.ui.mu.Lock()
	g.ui.elicit = func(_ context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asks = append(asks, *p)
		a := answers[min(len(asks), len(answers))-1]
		return &protocol.ElicitResult{Action: "accept", Content: a}, nil
	}
	g.ui.mu.Unlock()
	ctx := ctxT(t, time.Minute)
	res, err := g.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "trigger-elicitation-request"})
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res.Result)
	if res.Result.IsError || !strings.Contains(text, "Name: Ada") || !strings.Contains(text, "Favorite Integer: 7") {
		t.Errorf("the server did not get the corrected answer: %s", text)
	}
	mu.Lock()
	if len(asks) != 2 {
		t.Fatalf("%d asks, want 2", len(asks))
	}
	first, second := asks[0], asks[1]
	mu.Unlock()
	if first.Attempt != 0 || first.Invalid != nil || first.Content != nil {
		t.Errorf("first ask carries retry fields: %+v", first)
	}
	got := map[string]string{}
	for _, f := range second.Invalid {
		got[f.Field] = f.Message
	}
	if second.Attempt != 2 || got["name"] != "is required" || got["integer"] != "must be at most 100" || len(got) != 2 {
		t.Errorf("second ask: attempt %d, invalid %+v; want attempt 2, name required, integer at most 100", second.Attempt, second.Invalid)
	}
	if second.Content["integer"] != float64(500) || string(second.RequestedSchema) != string(first.RequestedSchema) || second.TimeoutMS <= 0 || second.TimeoutMS > first.TimeoutMS {
		t.Errorf("second ask does not repeat the form with the last answer: %+v", second)
	}

	// Never a valid answer: three asks, then cancel and a log warning.
	mu.Lock()
	asks, answers = nil, []map[string]any{{"name": "Ada", "integer": "many"}}
	mu.Unlock()
	res, err = g.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "trigger-elicitation-request"})
	if err != nil {
		t.Fatal(err)
	}
	if text := resultText(res.Result); !strings.Contains(text, "User cancelled") {
		t.Errorf("after %d invalid answers the server was not told cancel: %s", protocol.MaxElicitAsks, text)
	}
	mu.Lock()
	n := len(asks)
	mu.Unlock()
	if n != protocol.MaxElicitAsks {
		t.Errorf("%d asks, want %d", n, protocol.MaxElicitAsks)
	}
	waitFor(t, 10*time.Second, "a log warning naming the field", func() bool {
		g.ui.mu.Lock()
		defer g.ui.mu.Unlock()
		for _, l := range g.ui.logs {
			if l.Level == "warn" && strings.Contains(l.Message, `field "integer" must be a whole number`) && strings.Contains(l.Message, "cancelled") {
				return true
			}
		}
		return false
	})
}

// resultText is the text of a tool result's content blocks.
func resultText(r protocol.ToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
		b.WriteString("\n")
	}
	return b.String()
}
