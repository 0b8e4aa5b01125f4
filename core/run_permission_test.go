package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
)

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
	// The allowed call that was not made says why, naming the denied tool
	// (not the call's internal id).
	notRun := 0
	for _, m := range toolMessages(res.Messages) {
		if txt := fmt.Sprint(m); strings.Contains(txt, "Not run") {
			notRun++
			if !strings.Contains(txt, "though allowed: the user denied rm in the same step") {
				t.Errorf("a call not made says %q", txt)
			}
		}
	}
	if notRun == 0 {
		t.Error("no call says it was not run")
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
