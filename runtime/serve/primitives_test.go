package serve_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/core/scripted"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// run.start takes a prompt's messages and attachments, and refuses a turn
// that does not end with the user's message, a role other than user or
// assistant, binary parts over the bound prompts.get reads them with, and
// an attachment without a uri or of a server that is not configured or not
// ready.
func TestRunStartMessagesAndAttachmentsRefused(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "config.json")
	if err := os.WriteFile(global, []byte(`{"version":1,"mcp":{"servers":{"off":{"transport":"stdio","command":"x","enabled":false}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, _, _ := start(t, serve.ServeOptions{Config: config.LoadOptions{GlobalPath: global}, WatchInterval: -1, Provider: scripted.New(), ModelName: "scripted"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	init, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, Capabilities: protocol.UICapabilities{MCPPrompts: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !init.Capabilities.Primitives {
		t.Errorf("capabilities.primitives = false")
	}
	text := func(role, s string) protocol.PromptMessage {
		return protocol.PromptMessage{Role: role, Content: protocol.Content{Type: "text", Text: s}}
	}
	for name, p := range map[string]*protocol.RunStartParams{
		"assistant last": {Messages: []protocol.PromptMessage{text("user", "a"), text("assistant", "b")}},
		"system role":    {Messages: []protocol.PromptMessage{text("system", "a")}},
		"attach no uri":  {Prompt: "x", Attach: []protocol.ResourceParams{{Server: "off"}}},
		// Over the 2 MiB a prompts.get answer may carry by default.
		"image too large": {Messages: []protocol.PromptMessage{text("user", "see"),
			{Role: "user", Content: protocol.Content{Type: "image", MIMEType: "image/png", Data: make([]byte, 3<<20)}}}},
	} {
		if _, err := rt.RunStart(ctx, p); code(err) != protocol.CodeInvalidParams {
			t.Errorf("%s: err = %v, want %d", name, err, protocol.CodeInvalidParams)
		}
	}
	if _, err := rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "x", Attach: []protocol.ResourceParams{{Server: "nope", URI: "a://b"}}}); code(err) != protocol.CodeUnknownServer {
		t.Errorf("attach of an unknown server: err = %v", err)
	}
	if _, err := rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "x", Attach: []protocol.ResourceParams{{Server: "off", URI: "a://b"}}}); code(err) != protocol.CodeNotReady {
		t.Errorf("attach of a disabled server: err = %v", err)
	}
}

// startPrim is start with the UI's end as a PrimitivesServer too.
func startPrim(t *testing.T, opts serve.ServeOptions) (protocol.Server, protocol.PrimitivesServer) {
	t.Helper()
	toRuntime, fromUI := io.Pipe()
	toUI, fromRuntime := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	go func() {
		_ = serve.Serve(ctx, toRuntime, fromRuntime, opts)
		fromRuntime.Close()
		close(finished)
	}()
	conn := protocol.NewConn(toUI, fromUI, protocol.ClientHandler(&ui{}), protocol.ConnOptions{})
	go conn.Run(ctx)
	t.Cleanup(func() {
		cancel()
		fromUI.Close()
		select {
		case <-finished:
		case <-time.After(15 * time.Second):
			t.Error("Serve did not return after its context ended")
		}
	})
	return protocol.NewServerCaller(conn), protocol.NewPrimitivesCaller(conn)
}

// A server's prompt whose name holds an escape sequence is left out of
// prompts.list with a problem naming it stripped; titles, descriptions and
// completion values reach the UI stripped.
func TestPrimitivesStripServerText(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"ok\x1b]0;title\x07value"}}}, nil
		},
	})
	get := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	}
	srv.AddPrompt(&mcp.Prompt{Name: "fine", Title: "T\x1b[2Jitle", Description: "line one\nline \u202etwo"}, get)
	srv.AddPrompt(&mcp.Prompt{Name: "bad\x1b[31m"}, get)
	srv.AddResource(&mcp.Resource{URI: "file:///a", Name: "a\x1b[1mname", MIMEType: "text/plain"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///a", Text: "A"}}}, nil
	})
	_, prim, ctx := startPrimOver(t, srv)
	l, err := prim.PromptsList(ctx, &protocol.ListParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Prompts) != 1 || l.Prompts[0].Name != "fine" || l.Prompts[0].Title != "Title" || l.Prompts[0].Description != "line one\nline two" {
		t.Errorf("prompts = %+v", l.Prompts)
	}
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0], `prompt "bad[31m" left out`) && !strings.Contains(l.Problems[0], `prompt "bad" left out`) {
		t.Errorf("problems = %q", l.Problems)
	}
	c, err := prim.PromptsComplete(ctx, &protocol.CompleteParams{Server: "h", Prompt: "fine", Argument: "x"})
	if err != nil || len(c.Values) != 1 || c.Values[0] != "okvalue" {
		t.Errorf("complete = %+v, %v", c, err)
	}
	rs, err := prim.ResourcesList(ctx, &protocol.ListParams{Server: "h"})
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].Name != "aname" {
		t.Errorf("resources = %+v, %v", rs, err)
	}
}

// startPrimOver runs srv as the HTTP server "h" of a runtime it starts,
// initialized, and returns once h is ready, with a context of 20 s.
func startPrimOver(t *testing.T, srv *mcp.Server) (protocol.Server, protocol.PrimitivesServer, context.Context) {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	// Closed after the runtime (cleanups run last first): its session's
	// open stream would keep Close waiting.
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
	})
	global := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(global, []byte(`{"version":1,"mcp":{"servers":{"h":{"transport":"http","url":"`+hs.URL+`"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, prim := startPrim(t, serve.ServeOptions{Config: config.LoadOptions{GlobalPath: global}, WatchInterval: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	if _, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		t.Fatal(err)
	}
	for {
		st, err := rt.MCPGet(ctx, &protocol.ServerParams{ID: "h"})
		if err == nil && st.Server.State == protocol.StateReady {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("h never ready: %+v %v", st, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return rt, prim, ctx
}
