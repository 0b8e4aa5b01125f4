package e2e_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// primitivesScript answers a run by what its user message holds: the
// simple prompt's text, or the text of an attached dynamic resource.
var primitivesScript = map[string]any{"runs": []any{
	map[string]any{"prompt_contains": "This is a simple prompt without arguments.", "steps": []any{map[string]any{"text": "saw the simple prompt"}}},
	map[string]any{"prompt_contains": "Resource 2: This is a plaintext resource", "steps": []any{map[string]any{"text": "saw the attachment"}}},
	map[string]any{"prompt_contains": "turn on updates", "steps": []any{
		map[string]any{"calls": []any{map[string]any{"name": "everything/toggle-subscriber-updates", "args": map[string]any{}}}},
		map[string]any{"text": "updates are on"},
	}},
	map[string]any{"steps": []any{map[string]any{"text": "saw neither"}}},
}}

// startPrimitives starts host serve with server-everything as
// "everything", the primitives script, and a UI that offers prompts.
func startPrimitives(t *testing.T, caps protocol.UICapabilities) (*servedHost, *protocol.InitializeResult, protocol.PrimitivesServer) {
	t.Helper()
	everything := testenv.NodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, primitivesScript)
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--script", script, "--permissions", filepath.Join(dir, "permissions.json"), "--allow", "everything/toggle-subscriber-updates")
	ctx := ctxT(t, time.Minute)
	init, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-primitives"}, Capabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "everything ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "everything"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	return h, init, protocol.NewPrimitivesCaller(h.conn)
}

// runText starts a run and returns its final answer.
func runText(t *testing.T, h *servedHost, p *protocol.RunStartParams) string {
	t.Helper()
	r, err := h.rt.RunStart(ctxT(t, time.Minute), p)
	if err != nil {
		t.Fatalf("run.start: %v", err)
	}
	var st protocol.RunStatusParams
	waitFor(t, 30*time.Second, "run "+r.RunID+" to end", func() bool {
		var ok bool
		st, ok = h.ui.finalRun(r.RunID)
		return ok
	})
	if st.Status != protocol.RunCompleted {
		t.Fatalf("run %s ended %s: %s", r.RunID, st.Status, st.Error)
	}
	return st.Text
}

// TestPromptsForTheUser: over the protocol, with the real server-everything,
// a UI lists prompts, completes an argument (the second narrowed by the
// first), gets a prompt and runs it as the user's turn: the scripted model
// sees the prompt's text as the user's message. The model's prompt tools
// are off because the UI said it offers prompts.
func TestPromptsForTheUser(t *testing.T) {
	h, init, prim := startPrimitives(t, protocol.UICapabilities{MCPPrompts: true})
	if !init.Capabilities.Primitives {
		t.Errorf("initialize: capabilities.primitives = false")
	}
	ctx := ctxT(t, time.Minute)
	list, err := prim.PromptsList(ctx, &protocol.ListParams{})
	if err != nil {
		t.Fatalf("prompts.list: %v", err)
	}
	var names []string
	var completable protocol.PromptInfo
	for _, p := range list.Prompts {
		names = append(names, p.Server+":"+p.Name)
		if p.Name == "completable-prompt" {
			completable = p
		}
	}
	if !slices.Contains(names, "everything:simple-prompt") || completable.Name == "" {
		t.Fatalf("prompts.list = %v, want everything:simple-prompt and completable-prompt", names)
	}
	if len(completable.Arguments) != 2 || completable.Arguments[0].Name != "department" || !completable.Arguments[0].Required {
		t.Errorf("completable-prompt arguments = %+v", completable.Arguments)
	}
	c, err := prim.PromptsComplete(ctx, &protocol.CompleteParams{Server: "everything", Prompt: "completable-prompt", Argument: "department", Value: "Eng"})
	if err != nil || !slices.Equal(c.Values, []string{"Engineering"}) {
		t.Errorf("prompts.complete department Eng = %+v, %v", c, err)
	}
	c, err = prim.PromptsComplete(ctx, &protocol.CompleteParams{Server: "everything", Prompt: "completable-prompt", Argument: "name", Value: "",
		Arguments: map[string]string{"department": "Sales"}})
	if err != nil || !slices.Equal(c.Values, []string{"David", "Eve", "Frank"}) {
		t.Errorf("prompts.complete name in Sales = %+v, %v", c, err)
	}
	got, err := prim.PromptsGet(ctx, &protocol.PromptsGetParams{Server: "everything", Name: "simple-prompt"})
	if err != nil {
		t.Fatalf("prompts.get: %v", err)
	}
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Content.Text != "This is a simple prompt without arguments." {
		t.Fatalf("prompts.get = %+v", got)
	}
	if text := runText(t, h, &protocol.RunStartParams{Messages: got.Messages}); text != "saw the simple prompt" {
		t.Errorf("the run of the prompt answered %q, want the model to have seen the prompt", text)
	}
	tools, err := h.rt.ToolsList(ctx, &protocol.ToolsListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var local []string
	for _, tl := range tools.Tools {
		if tl.Server == "" {
			local = append(local, tl.PublicName)
		}
	}
	if slices.Contains(local, "mcp_prompt_get") || !slices.Contains(local, "mcp_resource_read") {
		t.Errorf("local tools = %v: want the model's prompt tools off (the UI offers prompts), its resource tools on", local)
	}
}

// TestPromptToolsStayForAUIWithoutPrompts: a UI that does not say it offers
// prompts keeps the model's prompt tools.
func TestPromptToolsStayForAUIWithoutPrompts(t *testing.T) {
	h, _, _ := startPrimitives(t, protocol.UICapabilities{})
	tools, err := h.rt.ToolsList(ctxT(t, time.Minute), &protocol.ToolsListParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.PublicName == "mcp_prompt_get" {
			return
		}
	}
	t.Errorf("mcp_prompt_get is not offered to a UI without mcp_prompts")
}

// TestResourcesForTheApplication: a UI lists resources and templates,
// completes a template variable, reads a resource, attaches one to the
// user's message (the scripted model sees its text) and subscribes to one,
// seeing resources.updated when server-everything reports a change.
func TestResourcesForTheApplication(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	h, _, prim := startPrimitives(t, protocol.UICapabilities{MCPPrompts: true})
	ctx := ctxT(t, 2*time.Minute)
	list, err := prim.ResourcesList(ctx, &protocol.ListParams{Server: "everything"})
	if err != nil || len(list.Resources) == 0 {
		t.Fatalf("resources.list = %+v, %v", list, err)
	}
	first := list.Resources[0]
	if first.Server != "everything" || first.URI == "" {
		t.Errorf("resources.list first = %+v", first)
	}
	tpls, err := prim.ResourcesTemplatesList(ctx, &protocol.ListParams{})
	if err != nil {
		t.Fatalf("resources.templates.list: %v", err)
	}
	var tpl string
	for _, x := range tpls.Templates {
		if strings.HasSuffix(x.URITemplate, "/text/{resourceId}") {
			tpl = x.URITemplate
		}
	}
	if tpl == "" {
		t.Fatalf("resources.templates.list = %+v, want the text template", tpls.Templates)
	}
	c, err := prim.ResourcesComplete(ctx, &protocol.CompleteParams{Server: "everything", URITemplate: tpl, Argument: "resourceId", Value: "2"})
	if err != nil || !slices.Equal(c.Values, []string{"2"}) {
		t.Errorf("resources.complete = %+v, %v", c, err)
	}
	uri := strings.Replace(tpl, "{resourceId}", "2", 1)
	read, err := prim.ResourcesRead(ctx, &protocol.ResourceParams{Server: "everything", URI: uri})
	if err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "Resource 2: This is a plaintext resource") || read.Contents[0].Type != "resource" {
		t.Fatalf("resources.read %s = %+v, %v", uri, read, err)
	}
	if text := runText(t, h, &protocol.RunStartParams{Prompt: "what does it say?", Attach: []protocol.ResourceParams{{Server: "everything", URI: uri}}}); text != "saw the attachment" {
		t.Errorf("the run with the attachment answered %q, want the model to have seen it", text)
	}

	if _, err := prim.ResourcesSubscribe(ctx, &protocol.ResourceParams{Server: "everything", URI: uri}); err != nil {
		t.Fatalf("resources.subscribe: %v", err)
	}
	// server-everything sends updates of subscribed resources once this
	// tool turned them on, then every 5 s.
	if _, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "toggle-subscriber-updates", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatalf("toggle-subscriber-updates: %v", err)
	}
	waitFor(t, 20*time.Second, "resources.updated", func() bool {
		for _, raw := range h.wireNotes(protocol.MethodResourcesUpdated) {
			var n protocol.ResourceUpdatedParams
			if json.Unmarshal(raw, &n) == nil && n.Server == "everything" && n.URI == uri {
				return true
			}
		}
		return false
	})
	if _, err := prim.ResourcesUnsubscribe(ctx, &protocol.ResourceParams{Server: "everything", URI: uri}); err != nil {
		t.Errorf("resources.unsubscribe: %v", err)
	}
}
