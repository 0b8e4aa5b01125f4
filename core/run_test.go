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

func TestRunCancelDuringTool(t *testing.T) {
	started := make(chan struct{})
	var sawCancel atomic.Bool
	slow := &funcTool{name: "slow", fn: func(ctx context.Context, _ json.RawMessage) (*core.Result, error) {
		close(started)
		select {
		case <-ctx.Done():
			sawCancel.Store(true)
			return nil, ctx.Err()
		case <-time.After(guard):
			return core.TextResult("finished without cancellation"), nil
		}
	}}
	fast := &echoTool{name: "fast"}
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "slow"}, {Name: "fast"}}}, scripted.Say("unreachable"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	var rec recorder
	res, err := core.Run(ctx, core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{slow, fast}, OnEvent: rec.on})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusCancelled {
		t.Fatalf("status = %s, want cancelled", res.Status)
	}
	if !sawCancel.Load() {
		t.Error("the in-flight tool's context was not cancelled")
	}
	if len(p.Requests()) != 1 {
		t.Errorf("model called %d times after cancellation, want 1", len(p.Requests()))
	}
	tm := toolMessages(res.Messages)
	if len(tm) != 2 {
		t.Fatalf("tool messages = %+v, want one per call", tm)
	}
	for _, m := range tm {
		if m.ToolName == "slow" && (!m.Result.IsError || !strings.Contains(m.Content, "cancelled")) {
			t.Errorf("slow call result = %q, want a cancellation error", m.Content)
		}
	}
	checkEventInvariants(t, rec.all(), core.StatusCancelled)
}

func TestRunCancelDuringModelCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := scripted.New(scripted.Step{Text: "never", Before: func(ctx context.Context, _ core.Request) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}})
	var rec recorder
	res, err := core.Run(ctx, core.RunOptions{Provider: p, Messages: userMessages("go"), OnEvent: rec.on})
	if err != nil {
		t.Fatalf("cancelled run returned error %v", err)
	}
	if res.Status != core.StatusCancelled {
		t.Fatalf("status = %s", res.Status)
	}
	checkEventInvariants(t, rec.all(), core.StatusCancelled)
	if e := rec.ofType(core.EventError); len(e) != 0 {
		t.Errorf("cancellation reported as error events: %+v", e)
	}
}

// TestRunAbandonsToolIgnoringCancel: a tool that ignores its context cannot
// hold the run beyond Grace.
func TestRunAbandonsToolIgnoringCancel(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	stubborn := &funcTool{name: "stubborn", fn: func(ctx context.Context, _ json.RawMessage) (*core.Result, error) {
		close(started)
		<-release
		return core.TextResult("late"), nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-started; cancel() }()
	p := scripted.New(scripted.CallTool("stubborn", `{}`))
	done := make(chan *core.RunResult, 1)
	go func() {
		res, _ := core.Run(ctx, core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{stubborn}, Grace: 10 * time.Millisecond})
		done <- res
	}()
	select {
	case res := <-done:
		if res.Status != core.StatusCancelled {
			t.Errorf("status = %s", res.Status)
		}
		if m := toolMessages(res.Messages); len(m) != 1 {
			t.Errorf("tool messages = %+v", m)
		}
	case <-time.After(guard):
		t.Fatal("Run waited for a tool that ignores cancellation")
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

func TestRunPlainDenyEndsTurn(t *testing.T) {
	a, rm, b := &echoTool{name: "a"}, &echoTool{name: "rm"}, &echoTool{name: "b"}
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "a"}, {Name: "rm", Args: json.RawMessage(`{"path":"/"}`)}, {Name: "b"}}},
		scripted.Say("must not be reached"),
	)
	var asked []string
	hook := func(ctx context.Context, req core.PermissionRequest) (core.PermissionDecision, error) {
		asked = append(asked, req.Call.Name)
		if req.Tool.Name() != req.Call.Name {
			t.Errorf("request tool %q for call %q", req.Tool.Name(), req.Call.Name)
		}
		if req.Call.Name == "rm" {
			return core.Deny(), nil
		}
		return core.Allow(), nil
	}
	var rec recorder
	res, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{a, rm, b}, Permission: hook, OnEvent: rec.on})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusCompleted || res.DeniedCall == nil || res.DeniedCall.Name != "rm" {
		t.Fatalf("result = %+v", res)
	}
	if strings.Join(asked, ",") != "a,rm" {
		t.Errorf("asked about %q, want a,rm (nothing after the deny)", asked)
	}
	if len(a.calls())+len(rm.calls())+len(b.calls()) != 0 {
		t.Errorf("tools ran after a plain deny: a=%d rm=%d b=%d", len(a.calls()), len(rm.calls()), len(b.calls()))
	}
	if len(p.Requests()) != 1 {
		t.Errorf("model called again after a plain deny")
	}
	if n := len(toolMessages(res.Messages)); n != 3 {
		t.Errorf("tool messages = %d, want 3 (transcript stays valid)", n)
	}
	evs := rec.all()
	checkEventInvariants(t, evs, core.StatusCompleted)
	perms := rec.ofType(core.EventPermission)
	if len(perms) != 4 || perms[3].Phase != core.PermissionDecided || perms[3].Decision.Kind != core.DecisionDeny || perms[3].Call.Name != "rm" {
		t.Errorf("permission events = %+v", perms)
	}
}

func TestRunDenyWithReason(t *testing.T) {
	rm := &echoTool{name: "rm"}
	p := scripted.New(
		scripted.CallTool("rm", `{"path":"/"}`),
		scripted.Step{WhenResultContains: "not the root directory", Text: "Sorry, I will not."},
	)
	hook := func(ctx context.Context, req core.PermissionRequest) (core.PermissionDecision, error) {
		return core.DenyWithReason("not the root directory"), nil
	}
	var rec recorder
	res, err := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{rm}, Permission: hook, OnEvent: rec.on})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != core.StatusCompleted || res.Text != "Sorry, I will not." || res.DeniedCall != nil {
		t.Fatalf("result = %+v", res)
	}
	if len(rm.calls()) != 0 {
		t.Error("denied tool ran")
	}
	reqs := p.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != core.RoleTool || !last.Result.IsError || !strings.Contains(last.Content, "not the root directory") {
		t.Errorf("model did not receive the reason: %+v", last)
	}
	checkEventInvariants(t, rec.all(), core.StatusCompleted)
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

func TestRunHookErrorFails(t *testing.T) {
	echo := &echoTool{name: "echo"}
	hook := func(context.Context, core.PermissionRequest) (core.PermissionDecision, error) {
		return core.PermissionDecision{}, errors.New("UI went away")
	}
	var rec recorder
	res, err := core.Run(context.Background(), core.RunOptions{Provider: scripted.New(scripted.CallTool("echo", "{}")), Messages: userMessages("go"), Tools: []core.Tool{echo}, Permission: hook, OnEvent: rec.on})
	if err == nil || !strings.Contains(err.Error(), `permission for tool "echo"`) || !strings.Contains(err.Error(), "UI went away") {
		t.Fatalf("err = %v", err)
	}
	if res == nil || res.Status != core.StatusFailed || len(echo.calls()) != 0 {
		t.Fatalf("result = %+v, echo calls %d", res, len(echo.calls()))
	}
	checkEventInvariants(t, rec.all(), core.StatusFailed)
	if e := rec.ofType(core.EventError); len(e) != 1 || !strings.Contains(e[0].Error, "UI went away") {
		t.Errorf("error events = %+v", e)
	}
}

func TestRunUnknownDecisionDenies(t *testing.T) {
	echo := &echoTool{name: "echo"}
	hook := func(context.Context, core.PermissionRequest) (core.PermissionDecision, error) {
		return core.PermissionDecision{Kind: "maybe"}, nil
	}
	res, err := core.Run(context.Background(), core.RunOptions{Provider: scripted.New(scripted.CallTool("echo", "{}")), Messages: userMessages("go"), Tools: []core.Tool{echo}, Permission: hook})
	if err != nil || res.DeniedCall == nil || len(echo.calls()) != 0 {
		t.Fatalf("run = %+v, %v; an unknown decision must deny", res, err)
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

// TestRunDoesNotWaitForEventHandler: with the handler stuck on the very first
// event, the run still reaches its second model call; once released, the
// handler sees every event in order.
func TestRunDoesNotWaitForEventHandler(t *testing.T) {
	release := make(chan struct{})
	reachedStep2 := make(chan struct{})
	var rec recorder
	handler := func(ev core.Event) {
		<-release
		rec.on(ev)
	}
	echo := &echoTool{name: "echo"}
	p := scripted.New(
		scripted.CallTool("echo", `{}`),
		scripted.Step{Text: "done", Before: func(context.Context, core.Request) error { close(reachedStep2); return nil }},
	)
	done := make(chan *core.RunResult, 1)
	go func() {
		res, _ := core.Run(context.Background(), core.RunOptions{Provider: p, Messages: userMessages("go"), Tools: []core.Tool{echo}, OnEvent: handler})
		done <- res
	}()
	select {
	case <-reachedStep2:
	case <-time.After(guard):
		t.Fatal("the loop waited for a blocked event handler")
	}
	select {
	case <-done:
		t.Fatal("Run returned before its events were delivered")
	default:
	}
	close(release)
	res := <-done
	if res.Status != core.StatusCompleted {
		t.Fatalf("status = %s", res.Status)
	}
	evs := rec.all()
	checkEventInvariants(t, evs, core.StatusCompleted)
	var types []string
	for _, ev := range evs {
		if ev.Type != core.EventTextDelta {
			types = append(types, string(ev.Type))
		}
	}
	want := "status,tool_call,tool_result,final,status"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("event order = %s, want %s", got, want)
	}
}

// TestRunStuckHandlerAndCancel: a handler that never returns cannot hold Run
// once ctx is cancelled.
func TestRunStuckHandlerAndCancel(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	ctx, cancel := context.WithCancel(context.Background())
	p := scripted.New(scripted.Say("hi"))
	done := make(chan *core.RunResult, 1)
	go func() {
		res, _ := core.Run(ctx, core.RunOptions{Provider: p, Messages: userMessages("go"), OnEvent: func(core.Event) { <-stuck }, Grace: time.Millisecond})
		done <- res
	}()
	for p.Remaining() != 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case res := <-done:
		if res.Status != core.StatusCompleted {
			t.Errorf("status = %s; the run had completed before the cancel", res.Status)
		}
	case <-time.After(guard):
		t.Fatal("Run did not return after cancel with a stuck handler")
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

func TestRunCancelWhileAskingPermission(t *testing.T) {
	echo := &echoTool{name: "echo"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hook := func(ctx context.Context, req core.PermissionRequest) (core.PermissionDecision, error) {
		cancel() // the user cancels the run instead of answering
		<-ctx.Done()
		return core.PermissionDecision{}, ctx.Err()
	}
	var rec recorder
	res, err := core.Run(ctx, core.RunOptions{Provider: scripted.New(scripted.CallTool("echo", "{}")), Messages: userMessages("go"), Tools: []core.Tool{echo}, Permission: hook, OnEvent: rec.on})
	if err != nil || res.Status != core.StatusCancelled {
		t.Fatalf("run = %+v, %v; want cancelled without error", res, err)
	}
	if len(echo.calls()) != 0 {
		t.Error("tool ran although the permission question was cancelled")
	}
	checkEventInvariants(t, rec.all(), core.StatusCancelled)
}
