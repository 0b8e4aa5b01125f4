package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
)

// guard bounds waits in tests so that a bug fails the test instead of
// hanging it. It is never what a test asserts.
const guard = 10 * time.Second

func TestRunFinalAnswer(t *testing.T) {
	p := scripted.New(scripted.Say("Hello there, world."))
	var rec recorder
	res, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("hi"), OnEvent: rec.on})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusCompleted || res.Text != "Hello there, world." || res.Steps != 1 {
		t.Fatalf("result = %+v", res)
	}
	evs := rec.all()
	checkEventInvariants(t, evs, core.StatusCompleted)
	var streamed strings.Builder
	deltas := rec.ofType(core.EventTextDelta)
	for _, ev := range deltas {
		streamed.WriteString(ev.Text)
	}
	if len(deltas) < 2 || streamed.String() != res.Text {
		t.Errorf("text deltas %q (%d) do not stream the answer %q", streamed.String(), len(deltas), res.Text)
	}
	if f := rec.ofType(core.EventFinal); len(f) != 1 || f[0].Text != res.Text {
		t.Errorf("final events = %+v", f)
	}
	if len(res.Messages) != 3 || res.Messages[2].Role != core.RoleAssistant || res.Messages[2].Content != res.Text {
		t.Errorf("messages = %+v", res.Messages)
	}
}

func TestRunToolRoundTrip(t *testing.T) {
	echo := &echoTool{name: "echo"}
	p := scripted.New(
		scripted.CallTool("echo", `{"x":1}`),
		scripted.Step{WhenResultContains: `echo {"x":1}`, Text: "done"},
	)
	var rec recorder
	res, err := core.Run(context.Background(), core.RunOptions{
		Provider: p, Messages: userMessages("go"), Tools: []core.Tool{echo}, OnEvent: rec.on,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusCompleted || res.Text != "done" || res.Steps != 2 {
		t.Fatalf("result = %+v", res)
	}
	if got := echo.calls(); len(got) != 1 || got[0] != `{"x":1}` {
		t.Errorf("echo calls = %q", got)
	}
	reqs := p.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2", len(reqs))
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "echo" || string(reqs[0].Tools[0].Parameters) != `{"type":"object"}` {
		t.Errorf("tool defs = %+v", reqs[0].Tools)
	}
	second := reqs[1].Messages
	if n := len(second); n != 4 || second[2].Role != core.RoleAssistant || len(second[2].ToolCalls) != 1 || second[3].Role != core.RoleTool {
		t.Fatalf("second request messages = %+v", second)
	}
	if second[3].ToolCallID != second[2].ToolCalls[0].ID || second[3].Content != `echo {"x":1}` || second[3].ToolName != "echo" {
		t.Errorf("tool message = %+v", second[3])
	}
	checkEventInvariants(t, rec.all(), core.StatusCompleted)
	if r := rec.ofType(core.EventToolResult); len(r) != 1 || core.RenderResult(r[0].Result) != `echo {"x":1}` {
		t.Errorf("tool_result events = %+v", r)
	}
}

// TestRunParallelCallsRunConcurrently proves concurrency with a barrier: each
// call waits until all three have started, which only a concurrent run can
// satisfy.
func TestRunParallelCallsRunConcurrently(t *testing.T) {
	const n = 3
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	barrier := &funcTool{name: "barrier", fn: func(ctx context.Context, args json.RawMessage) (*core.Result, error) {
		arrived.Done()
		select {
		case <-all:
			return core.TextResult("passed " + string(args)), nil
		case <-time.After(guard):
			return nil, errors.New("barrier not reached: calls did not run concurrently")
		}
	}}
	step := scripted.Step{}
	for i := range n {
		step.Calls = append(step.Calls, scripted.Call{Name: "barrier", Args: json.RawMessage(`{"i":` + string(rune('0'+i)) + `}`)})
	}
	p := scripted.New(step, scripted.Say("all passed"))
	var rec recorder
	res, err := core.Run(context.Background(), core.RunOptions{
		Provider: p, Messages: userMessages("go"), Tools: []core.Tool{barrier}, OnEvent: rec.on,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusCompleted {
		t.Fatalf("status = %s", res.Status)
	}
	// Results are appended in the model's order.
	var got []string
	for _, m := range res.Messages {
		if m.Role == core.RoleTool {
			got = append(got, m.Content)
		}
	}
	want := []string{`passed {"i":0}`, `passed {"i":1}`, `passed {"i":2}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("tool results = %q, want %q", got, want)
	}
	checkEventInvariants(t, rec.all(), core.StatusCompleted)
}

// TestRunResultsInModelOrder makes the second call finish first and checks the
// transcript keeps the model's order while events follow completion order.
func TestRunResultsInModelOrder(t *testing.T) {
	secondDone := make(chan struct{})
	tool := &funcTool{name: "t", fn: func(ctx context.Context, args json.RawMessage) (*core.Result, error) {
		if string(args) == `{"n":"first"}` {
			select {
			case <-secondDone:
			case <-time.After(guard):
				return nil, errors.New("second call never finished")
			}
			return core.TextResult("first"), nil
		}
		defer close(secondDone)
		return core.TextResult("second"), nil
	}}
	p := scripted.New(scripted.Step{Calls: []scripted.Call{
		{ID: "a", Name: "t", Args: json.RawMessage(`{"n":"first"}`)},
		{ID: "b", Name: "t", Args: json.RawMessage(`{"n":"second"}`)},
	}}, scripted.Say("ok"))
	var rec recorder
	res, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{tool}, OnEvent: rec.on})
	if err != nil {
		t.Fatal(err)
	}
	msgs := res.Messages
	if msgs[3].ToolCallID != "a" || msgs[3].Content != "first" || msgs[4].ToolCallID != "b" || msgs[4].Content != "second" {
		t.Errorf("tool messages out of model order: %+v, %+v", msgs[3], msgs[4])
	}
	r := rec.ofType(core.EventToolResult)
	if len(r) != 2 || r[0].Call.ID != "b" || r[1].Call.ID != "a" {
		t.Errorf("tool_result events should follow completion order (b, a): %+v", r)
	}
}

func TestRunMaxParallel(t *testing.T) {
	var cur, peak atomic.Int32
	tool := &funcTool{name: "t", fn: func(ctx context.Context, args json.RawMessage) (*core.Result, error) {
		n := cur.Add(1)
		defer cur.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		return core.TextResult("ok"), nil
	}}
	step := scripted.Step{}
	for range 8 {
		step.Calls = append(step.Calls, scripted.Call{Name: "t"})
	}
	p := scripted.New(step, scripted.Say("ok"))
	res, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{tool}, MaxParallel: 1})
	if err != nil || res.Status != core.StatusCompleted {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if peak.Load() != 1 {
		t.Errorf("peak concurrency = %d with MaxParallel 1", peak.Load())
	}
	if n := len(toolMessages(res.Messages)); n != 8 {
		t.Errorf("tool messages = %d, want 8", n)
	}
}

func TestRunStepLimit(t *testing.T) {
	echo := &echoTool{name: "echo"}
	p := scripted.New(scripted.CallTool("echo", `{"n":1}`), scripted.CallTool("echo", `{"n":2}`), scripted.CallTool("echo", `{"n":3}`))
	var rec recorder
	res, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("loop"), Tools: []core.Tool{echo}, MaxSteps: 2, OnEvent: rec.on})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusStepLimit || res.Steps != 2 {
		t.Fatalf("result = %+v", res)
	}
	if got := echo.calls(); len(got) != 1 || got[0] != `{"n":1}` {
		t.Errorf("echo calls = %q; the last step's call must not run", got)
	}
	if len(p.Requests()) != 2 {
		t.Errorf("model calls = %d, want 2", len(p.Requests()))
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != core.RoleTool || !strings.Contains(last.Content, "step limit") {
		t.Errorf("last message = %+v", last)
	}
	checkEventInvariants(t, rec.all(), core.StatusStepLimit)
}

func TestRunUnknownToolAndInvalidArgs(t *testing.T) {
	echo := &echoTool{name: "echo"}
	asked := 0
	hook := func(ctx context.Context, req core.PermissionRequest) (core.PermissionDecision, error) {
		asked++
		if string(req.Call.Args) != "{}" {
			t.Errorf("hook got args %q, want {} for absent arguments", req.Call.Args)
		}
		return core.Allow(), nil
	}
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "u", Name: "nope"},
			{ID: "j", Name: "echo", Args: json.RawMessage(`{"broken`)},
			{ID: "arr", Name: "echo", Args: json.RawMessage(`[1,2]`)},
			{ID: "none", Name: "echo"},
		}},
		scripted.Say("recovered"),
	)
	res, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{echo}, Permission: hook})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusCompleted || res.Text != "recovered" {
		t.Fatalf("result = %+v", res)
	}
	if asked != 1 {
		t.Errorf("hook asked %d times; unknown tools and invalid arguments must not reach it", asked)
	}
	if got := echo.calls(); len(got) != 1 || got[0] != "{}" {
		t.Errorf("echo calls = %q, want only the call without arguments, as {}", got)
	}
	tm := toolMessages(res.Messages)
	for id, want := range map[string]string{
		"u":   `Unknown tool "nope". Available tools: echo.`,
		"j":   `Invalid arguments for tool "echo": not valid JSON`,
		"arr": `Invalid arguments for tool "echo": want a JSON object, got [1,2]`,
	} {
		m := tm[id]
		if !m.Result.IsError || !strings.Contains(m.Content, want) {
			t.Errorf("call %s result = %q, want error containing %q", id, m.Content, want)
		}
	}
}

func TestRunToolErrorsBecomeResults(t *testing.T) {
	failing := &funcTool{name: "failing", fn: func(context.Context, json.RawMessage) (*core.Result, error) {
		return nil, errors.New("connection reset by peer")
	}}
	panicking := &funcTool{name: "panicking", fn: func(context.Context, json.RawMessage) (*core.Result, error) {
		panic("nil map")
	}}
	silent := &funcTool{name: "silent", fn: func(context.Context, json.RawMessage) (*core.Result, error) { return nil, nil }}
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{ID: "f", Name: "failing"}, {ID: "p", Name: "panicking"}, {ID: "s", Name: "silent"}}}, scripted.Say("ok"))
	res, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{failing, panicking, silent}})
	if err != nil || res.Status != core.StatusCompleted {
		t.Fatalf("run = %+v, %v", res, err)
	}
	tm := toolMessages(res.Messages)
	if m := tm["f"]; !m.Result.IsError || m.Content != `Error: Tool "failing" failed: connection reset by peer` {
		t.Errorf("failing result = %q", m.Content)
	}
	if m := tm["p"]; !m.Result.IsError || !strings.Contains(m.Content, "panicked: nil map") {
		t.Errorf("panicking result = %q", m.Content)
	}
	if m := tm["s"]; m.Result == nil || m.Result.IsError || m.Content != "" {
		t.Errorf("silent result = %+v", m)
	}
}

func TestRunProviderErrorFails(t *testing.T) {
	res, err := core.Run(context.Background(), core.RunOptions{Provider: scripted.New(scripted.Step{Error: "503 overloaded"}), Messages: userMessages("go")})
	if err == nil || !strings.Contains(err.Error(), "503 overloaded") || !strings.Contains(err.Error(), "step 1") {
		t.Fatalf("err = %v", err)
	}
	if res.Status != core.StatusFailed || !errors.Is(res.Err, err) && res.Err != err {
		t.Errorf("result = %+v", res)
	}
}

func TestRunInvalidOptions(t *testing.T) {
	echo := &echoTool{name: "echo"}
	for name, opts := range map[string]core.RunOptions{
		"no provider":  {Tools: []core.Tool{echo}},
		"duplicate":    {Provider: scripted.New(), Tools: []core.Tool{echo, &echoTool{name: "echo"}}},
		"invalid name": {Provider: scripted.New(), Tools: []core.Tool{&echoTool{name: "has space"}}},
		"nil tool":     {Provider: scripted.New(), Tools: []core.Tool{nil}},
	} {
		if res, err := core.Run(context.Background(), opts); err == nil || res != nil {
			t.Errorf("%s: Run = %+v, %v; want an error", name, res, err)
		}
	}
}

func TestRunDoesNotModifyInput(t *testing.T) {
	in := make([]core.Message, 2, 10) // spare capacity a careless append would write into
	copy(in, userMessages("hi"))
	echo := &echoTool{name: "echo"}
	p := scripted.New(scripted.CallTool("echo", "{}"), scripted.Say("ok"))
	if _, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: in, Tools: []core.Tool{echo}}); err != nil {
		t.Fatal(err)
	}
	if spare := in[:3]; spare[2].Role != "" {
		t.Errorf("Run wrote into the caller's slice: %+v", spare[2])
	}
}
