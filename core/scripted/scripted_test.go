package scripted_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
)

func TestStreamsTextInPieces(t *testing.T) {
	p := scripted.New(scripted.Say("one  two three"))
	var pieces []string
	resp, err := p.Stream(context.Background(), core.Request{}, func(d core.Delta) { pieces = append(pieces, d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pieces, "|") != "one  |two |three" || resp.Text != "one  two three" || resp.FinishReason != core.FinishStop {
		t.Errorf("pieces = %q, resp = %+v", pieces, resp)
	}
	if _, err := p.Stream(context.Background(), core.Request{}, nil); !errors.Is(err, scripted.ErrScriptEnded) {
		t.Errorf("past the end: err = %v, want ErrScriptEnded", err)
	}
}

func TestConditionalSteps(t *testing.T) {
	p := scripted.New(
		scripted.CallTool("rm", `{"p":1}`),
		scripted.Step{WhenResultContains: "allowed", Text: "it ran"},
		scripted.Step{WhenResultContains: "denied", Text: "it was denied"},
		scripted.Say("after"),
	)
	resp, err := p.Stream(context.Background(), core.Request{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "rm" || string(resp.ToolCalls[0].Args) != `{"p":1}` || resp.ToolCalls[0].ID == "" || resp.FinishReason != core.FinishToolCalls {
		t.Fatalf("resp = %+v", resp)
	}
	req := core.Request{Messages: []core.Message{
		{Role: core.RoleUser, Content: "the word allowed here is not a tool result"},
		{Role: core.RoleTool, Content: "Error: The user denied this tool call."},
	}}
	resp, err = p.Stream(context.Background(), req, nil)
	if err != nil || resp.Text != "it was denied" {
		t.Fatalf("resp = %+v, %v; want the 'denied' branch", resp, err)
	}
	resp, err = p.Stream(context.Background(), core.Request{}, nil)
	if err != nil || resp.Text != "after" || p.Remaining() != 0 {
		t.Fatalf("resp = %+v, %v, remaining %d", resp, err, p.Remaining())
	}
	if n := len(p.Requests()); n != 3 {
		t.Errorf("recorded %d requests", n)
	}
}

func TestErrorsAndCancellation(t *testing.T) {
	p := scripted.New(scripted.Step{Error: "rate limited"}, scripted.Say("x"))
	if _, err := p.Stream(context.Background(), core.Request{}, nil); err == nil || !strings.Contains(err.Error(), "rate limited") {
		t.Errorf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Stream(ctx, core.Request{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: err = %v", err)
	}
}

func TestParse(t *testing.T) {
	steps, err := scripted.Parse([]byte(`[
		{"calls":[{"name":"echo","args":{"text":"hi"}}]},
		{"when_result_contains":"hi","text":"said hi"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	p := scripted.New(steps...)
	resp, err := p.Stream(context.Background(), core.Request{}, nil)
	if err != nil || string(resp.ToolCalls[0].Args) != `{"text":"hi"}` {
		t.Fatalf("resp = %+v, %v", resp, err)
	}
	if _, err := scripted.Parse([]byte(`[{"calls":[{"args":{}}]}]`)); err == nil || !strings.Contains(err.Error(), "step 0, call 0") {
		t.Errorf("missing name: err = %v", err)
	}
	if _, err := scripted.Parse([]byte(`{`)); err == nil {
		t.Error("Parse accepted broken JSON")
	}
	// A typo is an error naming the field, not a step that does nothing.
	for _, bad := range []string{`[{"call":[{"name":"echo"}]}]`, `[{"calls":[{"name":"echo","argz":{}}]}]`, `[{"text":"a"}] [{"text":"b"}]`} {
		if _, err := scripted.Parse([]byte(bad)); err == nil {
			t.Errorf("Parse accepted %s", bad)
		}
	}
	if _, err := scripted.Parse([]byte(`[{"call":[]}]`)); err == nil || !strings.Contains(err.Error(), `"call"`) {
		t.Errorf("unknown field: err = %v, want one naming it", err)
	}
}

// A call's arguments may be given as the UI protocol names them too.
func TestParseArgumentsAlias(t *testing.T) {
	steps, err := scripted.Parse([]byte(`[{"calls":[{"name":"s/t","arguments":{"a":1}}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	p := scripted.New(steps...)
	resp, err := p.Stream(context.Background(), core.Request{}, func(core.Delta) {})
	if err != nil || len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Args) != `{"a":1}` {
		t.Fatalf("arguments: %v %+v", err, resp)
	}
	if _, err := scripted.Parse([]byte(`[{"calls":[{"name":"s/t","args":{},"arguments":{}}]}]`)); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("both names: %v", err)
	}
}

// TestCapture: a step's calls get the first submatch of its capture from
// the latest tool result that matches, JSON-escaped.
func TestCapture(t *testing.T) {
	steps, err := scripted.Parse([]byte(`[{"capture": "id \"([^ ]+)\" ", "calls": [{"name": "read", "args": {"id": "{{capture}}"}}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	p := scripted.New(steps...)
	msgs := []core.Message{{Role: core.RoleTool, Content: `kept as id "a\b" here`}, {Role: core.RoleTool, Content: "no match"}}
	resp, err := p.Stream(context.Background(), core.Request{Messages: msgs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.ToolCalls[0].Args); got != `{"id": "a\\b"}` {
		t.Errorf("args %s", got)
	}
	if _, err := scripted.Parse([]byte(`[{"capture": "(", "text": "x"}]`)); err == nil {
		t.Error("a bad capture expression parsed")
	}
	// The user's message counts too (a test names an id in its prompt);
	// the latest message first.
	p = scripted.New(steps...)
	msgs = append(msgs, core.Message{Role: core.RoleUser, Content: `read id "u1" now`})
	resp, err = p.Stream(context.Background(), core.Request{Messages: msgs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.ToolCalls[0].Args); got != `{"id": "u1"}` {
		t.Errorf("args from the user's message %s", got)
	}
}
