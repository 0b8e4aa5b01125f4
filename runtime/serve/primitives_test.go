package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/core/scripted"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
)

// run.start takes a prompt's messages and attachments, and refuses a turn
// that does not end with the user's message, a role other than user or
// assistant, and an attachment without a uri or of a server that is not
// configured or not ready.
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
