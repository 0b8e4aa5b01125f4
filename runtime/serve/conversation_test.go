package serve_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
)

// conversation.end of a conversation whose run is in progress cancels the
// run, and the conversation is then unknown: its run leaves no history to
// continue, and it cannot be ended twice.
func TestConversationEndCancelsItsRun(t *testing.T) {
	t.Setenv("MCP_HOST_CACHE_DIR", t.TempDir())
	started, stopped := make(chan struct{}), make(chan struct{})
	model := scripted.New(scripted.Step{Text: "never", Before: func(ctx context.Context, _ core.Request) error {
		close(started)
		<-ctx.Done()
		close(stopped)
		return ctx.Err()
	}})
	conn, _, _ := startConn(t, serve.ServeOptions{Config: config.LoadOptions{GlobalPath: t.TempDir() + "/none.json"}, WatchInterval: -1, Provider: model, ModelName: "scripted"})
	rt, conv := protocol.NewServerCaller(conn), protocol.NewConversationCaller(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		t.Fatal(err)
	}
	r, err := rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "wait"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the run did not reach the model")
	}
	if _, err := conv.ConversationEnd(ctx, &protocol.ConversationParams{Conversation: r.Conversation}); err != nil {
		t.Fatalf("conversation.end: %v", err)
	}
	select {
	case <-stopped:
	case <-ctx.Done():
		t.Fatal("conversation.end did not cancel the run")
	}
	if _, err := rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "more", Conversation: r.Conversation}); code(err) != protocol.CodeInvalidParams {
		t.Errorf("run.start of the ended conversation: %v", err)
	}
	if _, err := conv.ConversationEnd(ctx, &protocol.ConversationParams{Conversation: r.Conversation}); code(err) != protocol.CodeInvalidParams {
		t.Errorf("conversation.end again: %v", err)
	}
	if _, err := conv.ConversationEnd(ctx, &protocol.ConversationParams{Conversation: "c99"}); code(err) != protocol.CodeInvalidParams {
		t.Errorf("conversation.end of a conversation never started: %v", err)
	}
}
