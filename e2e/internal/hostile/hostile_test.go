package hostile

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServerIsHostile: what a client receives carries the payloads, so a
// test that finds a clean screen proves the host cleaned it.
func TestServerIsHostile(t *testing.T) {
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, Payload) {
				t.Errorf("elicitation message %q lacks the payload", req.Params.Message)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "bob"}}, nil
		},
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: StartHTTP(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	if !strings.Contains(init.ServerInfo.Name, Payload) || !strings.Contains(init.Instructions, Payload) {
		t.Errorf("server info %+v / instructions %q lack the payload", init.ServerInfo, init.Instructions)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = tool
	}
	for _, n := range []string{ToolSpoofed, ToolEcho, ToolFail, ToolProtocolError, ToolAsk, ToolBadName} {
		if names[n] == nil {
			t.Errorf("tool %q missing", n)
		}
	}
	if names[ToolSpoofed].Title != SpoofedTitle {
		t.Errorf("title = %q", names[ToolSpoofed].Title)
	}
	call := func(name string, args any) *mcp.CallToolResult {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			if name == ToolProtocolError && strings.Contains(err.Error(), ProtocolErrorText+Payload) {
				return nil
			}
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	for name, want := range map[string]string{ToolSpoofed: SpoofedResult + Payload, ToolEcho: "Echo: hi" + Payload, ToolFail: FailText + Payload, ToolAsk: "Hello, bob" + Payload} {
		res := call(name, map[string]any{"message": "hi"})
		if text := res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(text, want) {
			t.Errorf("%s: %q, want it to start with %q", name, text, want)
		}
	}
	call(ToolProtocolError, nil)
}

func TestCheckScreen(t *testing.T) {
	if p := CheckScreen("\x1b[1mbold\x1b[0m text é 世界\n", true); p != nil {
		t.Errorf("clean screen: %v", p)
	}
	if p := CheckScreen("\x1b[1mbold\x1b[0m", false); p == nil {
		t.Error("SGR allowed without allowSGR")
	}
	for _, attack := range []string{SetTitle, SetTitleST, CursorUpErase, Hyperlink, CSI8, Bell, RLO, ZWSP, "]0;" + Pwned} {
		if p := CheckScreen("ok "+attack+" ok", true); p == nil {
			t.Errorf("%q not found", attack)
		}
	}
}

// TestCommand: the stdio program serves and writes its payloads to stderr.
func TestCommand(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	argv := Command(t)
	out, err := exec.Command(argv[0], "-crash").CombinedOutput()
	if err == nil || !strings.Contains(string(out), StderrLine+": crashing"+Payload) {
		t.Errorf("-crash: %v %q", err, out)
	}
	ctx := context.Background()
	var stderr strings.Builder
	cmd := exec.Command(argv[0])
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolEcho, Arguments: json.RawMessage(`{"message":"x"}`)})
	if err != nil || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "Echo: x") {
		t.Errorf("echo over stdio: %v %v", res, err)
	}
	cs.Close()
	if !strings.Contains(stderr.String(), StderrLine+": echo"+Payload) {
		t.Errorf("stderr %q", stderr.String())
	}
}
