package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
)

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
		if m.ToolName == "slow" && (!m.Result.IsError || !strings.Contains(m.Content, "cancelled") || strings.Contains(m.Content, "context canceled")) {
			t.Errorf("slow call result = %q, want a cancellation error in one sentence, without the error chain", m.Content)
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
