package agentrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigTools returns n MCP tools shaped like a large catalog: 200-character
// descriptions and 5-property schemas. Tool 7345 (when n allows) is
// refund_payment, the one a test searches for.
func bigTools(n int) []*mcp.Tool {
	nouns := []string{"invoice", "customer", "ticket", "file", "repo", "order", "user", "report"}
	out := make([]*mcp.Tool, n)
	for i := range out {
		noun := nouns[i%len(nouns)]
		desc := fmt.Sprintf("Get the %s records of workspace %d. ", noun, i)
		for len(desc) < 200 {
			desc += "Returns data from the remote service with pagination. "
		}
		out[i] = &mcp.Tool{
			Name:        fmt.Sprintf("get_%s_%d", noun, i),
			Description: desc[:200],
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"limit":{"type":"integer"},"cursor":{"type":"string"},"` + noun + `_name":{"type":"string"},"fields":{"type":"array","items":{"type":"string"}}}}`),
		}
	}
	if n > 7345 {
		out[7345] = &mcp.Tool{Name: "refund_payment", Description: "Refund a captured card payment, fully or in part.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"payment_id":{"type":"string"},"amount":{"type":"integer"}},"required":["payment_id"]}`)}
	}
	return out
}

// recordingCaller is a server that records the calls it gets.
type recordingCaller struct {
	mu    sync.Mutex
	calls []string
}

func (c *recordingCaller) CallTool(_ context.Context, name string, args any) (*mcp.CallToolResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("%s %s", name, args))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "refunded"}}}, nil
}

func snapshotOf(t testing.TB, server string, tools []*mcp.Tool, caller adapter.Caller) *adapter.Snapshot {
	t.Helper()
	cat, err := adapter.BuildCatalog(server, tools, caller, nil, adapter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return adapter.NewSnapshot([]*adapter.Catalog{cat}, []string{SearchToolName})
}

// askedGate is a gate whose confirmer allows and records every question.
func askedGate(t *testing.T) (*permission.Gate, *[]string) {
	var mu sync.Mutex
	var asked []string
	g, err := permission.New(permission.Options{Confirmer: permission.ConfirmFunc(func(_ context.Context, r *permission.Request) (permission.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.Server+"/"+r.Tool)
		return permission.Response{Answer: permission.AllowOnce}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	return g, &asked
}

// TestSearchModeBoundsDefinitions: with 10,000 tools the definitions the
// provider receives, marshalled, stay under 16 KB in every step, also
// after searches that find far more than fits; the model finds the right
// tool, it is offered and called, and the call is confirmed by the gate
// (the search itself is not).
func TestSearchModeBoundsDefinitions(t *testing.T) {
	caller := &recordingCaller{}
	snap := snapshotOf(t, "billing", bigTools(10_000), caller)
	gate, asked := askedGate(t)
	a := &Agent{opts: AgentOptions{Gate: gate}}
	target := adapter.PublicName("billing", "refund_payment")

	var sizes []int
	var offered [][]string
	measure := func(_ context.Context, req core.Request) error {
		b, err := json.Marshal(req.Tools)
		if err != nil {
			return err
		}
		sizes = append(sizes, len(b))
		var names []string
		for _, d := range req.Tools {
			names = append(names, d.Name)
		}
		offered = append(offered, names)
		return nil
	}
	search := func(q string) scripted.Step {
		return scripted.Step{Before: measure, Calls: []scripted.Call{{Name: SearchToolName, Args: json.RawMessage(`{"query":"` + q + `","limit":10}`)}}}
	}
	p := scripted.New(
		search("refund a card payment"),
		scripted.Step{Before: measure, WhenResultContains: target, Calls: []scripted.Call{{Name: target, Args: json.RawMessage(`{"payment_id":"p1"}`)}}},
		search("invoice records"), search("customer"), search("report pagination"), search("ticket workspace"),
		scripted.Step{Before: measure, Text: "done"},
	)
	tools, prov, info := a.searchMode(snap, snap.CoreTools(), p)
	if info == nil || info.Tools != 10_000 || info.Tool != SearchToolName {
		t.Fatalf("info = %+v, want search mode over 10,000 tools", info)
	}
	res, err := core.Run(context.Background(), core.RunOptions{Provider: prov, Tools: tools, Permission: gate.Hook()})
	if err != nil || res.Status != core.StatusCompleted || res.Text != "done" {
		t.Fatalf("run: err %v, result %+v", err, res)
	}
	const bound = 16 << 10
	for i, n := range sizes {
		if n > bound {
			t.Errorf("step %d: %d bytes of tool definitions, want at most %d", i+1, n, bound)
		}
	}
	if len(offered[0]) != 1 || offered[0][0] != SearchToolName {
		t.Errorf("first step offers %v, want the search tool only", offered[0])
	}
	if !strings.Contains(strings.Join(offered[1], " "), target) {
		t.Errorf("after the search the model is offered %v, want %s among them", offered[1], target)
	}
	if len(offered[len(offered)-1]) < 5 {
		t.Errorf("after five searches only %d definitions are offered", len(offered[len(offered)-1]))
	}
	if len(caller.calls) != 1 || !strings.HasPrefix(caller.calls[0], "refund_payment ") {
		t.Errorf("server calls = %q, want one refund_payment", caller.calls)
	}
	if len(*asked) != 1 || (*asked)[0] != "billing/refund_payment" {
		t.Errorf("confirms = %q, want exactly one, for billing/refund_payment", *asked)
	}
	t.Logf("definition bytes per step: %v (bound %d) for a catalog of %d tools, %d bytes", sizes, bound, info.Tools, info.Bytes)
}

// TestBelowBudgetNothingChanges: a catalog within the budget is handed to
// the core and the provider as it is.
func TestBelowBudgetNothingChanges(t *testing.T) {
	snap := snapshotOf(t, "s", bigTools(DefaultSearchMaxTools), &recordingCaller{})
	a := &Agent{}
	p := scripted.New(scripted.Say("hi"))
	tools := snap.CoreTools()
	got, prov, info := a.searchMode(snap, tools, p)
	if info != nil || prov != core.Provider(p) || len(got) != len(tools) || &got[0] != &tools[0] {
		t.Fatalf("below the budget: info %+v, provider replaced %v, %d tools", info, prov != core.Provider(p), len(got))
	}
	// One tool more, or a byte budget below the catalog's size, turns it on.
	if a.ToolSearch(nil) != nil {
		t.Fatal("an empty catalog is in search mode")
	}
	a.SetToolSearch(ToolSearchOptions{MaxBytes: 1000})
	if info := a.ToolSearch(snap.Tools()); info == nil || info.MaxBytes != 1000 || info.MaxTools != DefaultSearchMaxTools {
		t.Fatalf("byte budget 1000: info = %+v", info)
	}
}

// TestIndexBuiltOncePerCatalog: runs over the same catalog share one index
// (the snapshot is rebuilt for every run, with new adapters); a changed
// description builds a new one.
func TestIndexBuiltOncePerCatalog(t *testing.T) {
	a := &Agent{}
	tools := bigTools(2000)
	for range 3 {
		snap := snapshotOf(t, "s", tools, &recordingCaller{})
		a.searchMode(snap, snap.CoreTools(), scripted.New())
	}
	if a.ts.builds != 1 {
		t.Fatalf("3 runs over one catalog built %d indexes, want 1", a.ts.builds)
	}
	tools[5] = &mcp.Tool{Name: tools[5].Name, Description: "changed", InputSchema: tools[5].InputSchema}
	snap := snapshotOf(t, "s", tools, &recordingCaller{})
	a.searchMode(snap, snap.CoreTools(), scripted.New())
	if a.ts.builds != 2 {
		t.Fatalf("a changed catalog: %d builds, want 2", a.ts.builds)
	}
}

// TestSearchAnswerIsBounded: a hostile tool with a huge description and
// schema is answered with its description cut and its schema left out.
func TestSearchAnswerIsBounded(t *testing.T) {
	tools := bigTools(300)
	huge := `{"type":"object","properties":{"q":{"type":"string","description":"` + strings.Repeat("x", 40<<10) + `"}}}`
	tools[3] = &mcp.Tool{Name: "evil_lookup", Description: strings.Repeat("lookup everything ", 20_000), InputSchema: json.RawMessage(huge)}
	snap := snapshotOf(t, "s", tools, &recordingCaller{})
	all, _, info := (&Agent{}).searchMode(snap, snap.CoreTools(), scripted.New())
	if info == nil || all[0].Name() != SearchToolName {
		t.Fatal("not in search mode")
	}
	res, err := all[0].Call(context.Background(), json.RawMessage(`{"query":"evil_lookup"}`))
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	text := res.Content[0].Text
	if len(text) > 4*searchMaxDesc+searchMaxSchema*searchMaxResults || !strings.Contains(text, "schema_note") {
		t.Fatalf("answer of %d bytes, schema note present: %v", len(text), strings.Contains(text, "schema_note"))
	}
	if res, _ := all[0].Call(context.Background(), json.RawMessage(`{}`)); !res.IsError {
		t.Fatal("a search without a query is not an error")
	}
}
