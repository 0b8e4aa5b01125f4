package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/bench"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeToolSearch drives the built `host serve` over its pipes with a
// scripted model against a Go MCP server of 10,000 tools: the run is in
// search mode (its running status and tools.list say so), the model
// searches, finds refund_payment among 9,999 catalog tools and a few
// decoys, and calls it; the call is confirmed by the UI (the search is
// not) and reaches the server once.
func TestServeToolSearch(t *testing.T) {
	t.Parallel()                  // waits on processes most of its time (package doc: Parallel tests)
	srv := bench.NewServer(9_980) // catalog_tool_NNNNN, plus echo
	var mu sync.Mutex
	var refunds []string
	srv.AddTool(&mcp.Tool{Name: "refund_payment", Title: "Refund a payment",
		Description: "Refund a captured card payment, fully or in part.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"payment_id":{"type":"string"},"amount":{"type":"integer"}},"required":["payment_id"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			refunds = append(refunds, string(req.Params.Arguments))
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "refunded pay_42"}}}, nil
		})
	// Decoys that share words with the query.
	for i := range 18 {
		srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("payment_report_%d", i),
			Description: "Report on card payments of a month; no refund is made.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"month":{"type":"string"}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				t.Error("a decoy was called")
				return &mcp.CallToolResult{}, nil
			})
	}
	served, err := bench.Serve(srv, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { served.Close() })

	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1,
		"tool_search": map[string]any{"max_tools": 128, "max_bytes": 65536},
		"mcp":         map[string]any{"servers": map[string]any{"billing": map[string]any{"transport": "http", "url": served.URL}}}})
	target := adapter.PublicName("billing", "refund_payment")
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"name": "mcp_tool_search", "args": map[string]any{"query": "refund a card payment"}}}},
		{"when_result_contains": target, "calls": []map[string]any{{"name": target, "args": map[string]any{"payment_id": "pay_42", "amount": 5}}}},
		{"when_result_contains": "refunded pay_42", "text": "refunded"},
		{"text": "the search did not find the tool, or the call did not go through"},
	})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--script", script, "--confirm-timeout", "30s", "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, 3*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version,
		ClientInfo: protocol.Implementation{Name: "e2e"}, Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 90*time.Second, "billing ready with 10,000 tools", func() bool {
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		return err == nil && len(l.Servers) == 1 && l.Servers[0].State == protocol.StateReady && l.Servers[0].Tools == 10_000
	})

	tl, err := h.rt.ToolsList(ctx, &protocol.ToolsListParams{Server: "billing"})
	if err != nil {
		t.Fatal(err)
	}
	if tl.ToolSearch == nil || tl.ToolSearch.Tools != 10_000 || tl.ToolSearch.Tool != "mcp_tool_search" || len(tl.Tools) != 10_000 {
		t.Fatalf("tools.list: %d tools, tool_search %+v; want all 10,000 listed and search mode on", len(tl.Tools), tl.ToolSearch)
	}

	h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "refund payment pay_42"})
	if err != nil {
		t.Fatal(err)
	}
	var final protocol.RunStatusParams
	waitFor(t, 60*time.Second, "the run to end", func() bool {
		var ok bool
		final, ok = h.ui.finalRun(r.RunID)
		return ok
	})
	if final.Status != protocol.RunCompleted || final.Text != "refunded" {
		t.Fatalf("run ended %s with %q (error %q), want completed with \"refunded\"", final.Status, final.Text, final.Error)
	}

	h.ui.mu.Lock()
	var running []protocol.RunStatusParams
	for _, s := range h.ui.runs {
		if s.RunID == r.RunID && s.Status == protocol.RunRunning {
			running = append(running, s)
		}
	}
	confirms := append([]protocol.ConfirmParams(nil), h.ui.confirms...)
	h.ui.mu.Unlock()
	if len(running) != 1 || running[0].ToolSearch == nil || running[0].ToolSearch.Tools != 10_000 || running[0].ToolSearch.MaxTools != 128 {
		t.Fatalf("running statuses %+v, want one saying search mode over 10,000 tools", running)
	}
	if len(confirms) != 1 || confirms[0].Tool == nil || confirms[0].Tool.Server != "billing" || confirms[0].Tool.Tool != "refund_payment" || confirms[0].RunID != r.RunID {
		t.Fatalf("confirms %+v, want exactly one, for billing/refund_payment in the run (none for the search)", confirms)
	}
	mu.Lock()
	got := append([]string(nil), refunds...)
	mu.Unlock()
	if len(got) != 1 || !strings.Contains(got[0], `"pay_42"`) {
		t.Fatalf("server calls %q, want one refund of pay_42", got)
	}

	// The run's events: the search is a local call (no server, not
	// unknown) whose result names the tool; the refund is an ordinary
	// gated call of billing/refund_payment.
	var searched, called bool
	for _, e := range h.ui.runEvents(r.RunID) {
		if e.Call == nil {
			continue
		}
		switch {
		case e.Type == protocol.EventToolCall && e.Call.PublicName == "mcp_tool_search":
			searched = e.Call.Server == "" && !e.Call.Unknown
		case e.Type == protocol.EventToolResult && e.Call.PublicName == "mcp_tool_search":
			if e.Result == nil || len(e.Result.Content) == 0 || !strings.Contains(e.Result.Content[0].Text, target) {
				t.Errorf("search result %+v does not name %s", e.Result, target)
			}
		case e.Type == protocol.EventPermission && e.Call.PublicName == target && e.Phase == "decided":
			called = e.Call.Server == "billing" && e.Call.Tool == "refund_payment" && e.Decision == "allow" && e.DecidedBy == "user"
		}
	}
	if !searched || !called {
		t.Fatalf("events: search as a local call %v, refund decided by the user %v", searched, called)
	}
}
