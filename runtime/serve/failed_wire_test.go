package serve_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over the protocol, the error answer of a request a server refused names
// the server and the request once (issue 36): a missing resource, a
// missing prompt, a subscription to a server that offers none.
func TestPrimitiveErrorsSayContextOnceOnTheWire(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	srv.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///a", Text: "A"}}}, nil
	})
	_, prim, ctx := startPrimOver(t, srv)
	_, err := prim.ResourcesRead(ctx, &protocol.ResourceParams{Server: "h", URI: "file:///missing"})
	wantOnce(t, err, `server "h": resources/read "file:///missing": `, "resources/read")
	_, err = prim.PromptsGet(ctx, &protocol.PromptsGetParams{Server: "h", Name: "missing"})
	wantOnce(t, err, `server "h": prompts/get "missing": `, "prompts/get")
	_, err = prim.ResourcesSubscribe(ctx, &protocol.ResourceParams{Server: "h", URI: "file:///a"})
	wantOnce(t, err, `server "h": resources/subscribe "file:///a": `, "resources/subscribe")
}

// wantOnce checks that err is a failed error whose message opens with
// head, names the server h once and method once, and says more after.
func wantOnce(t *testing.T, err error, head, method string) {
	t.Helper()
	if code(err) != protocol.CodeFailed {
		t.Fatalf("err = %v, want code %d", err, protocol.CodeFailed)
	}
	msg := err.(*protocol.Error).Message
	t.Logf("%s", msg)
	if !strings.HasPrefix(msg, head) || len(msg) == len(head) {
		t.Errorf("message %q does not open with %q and go on", msg, head)
	}
	if n := strings.Count(msg, `server "h"`); n != 1 {
		t.Errorf("message names the server %d times: %q", n, msg)
	}
	if n := strings.Count(msg, method); n != 1 {
		t.Errorf("message names %s %d times: %q", method, n, msg)
	}
}
