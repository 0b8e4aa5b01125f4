package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestNewRejectsMissingParts(t *testing.T) {
	def := &mcp.Tool{Name: "t", InputSchema: objectSchema}
	c := textResult("x")
	for _, tc := range []struct {
		name   string
		server string
		def    *mcp.Tool
		caller Caller
		want   string
	}{
		{"no server", "", def, c, "empty server id"},
		{"nil tool", "s", nil, c, `server "s": nil tool`},
		{"no name", "s", &mcp.Tool{}, c, `server "s": tool without a name`},
		{"nil caller", "s", def, nil, `server "s" tool "t": nil caller`},
	} {
		if _, err := New(tc.server, tc.def, tc.caller, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestDescriptionAndTitle(t *testing.T) {
	for _, tc := range []struct {
		def       mcp.Tool
		wantDesc  string
		wantTitle string
	}{
		{mcp.Tool{Name: "get", Description: "Gets it.", Title: "Get"}, "[MCP srv/get] Gets it.", "Get"},
		{mcp.Tool{Name: "get", Title: "Get thing"}, "[MCP srv/get] Get thing", "Get thing"},
		{mcp.Tool{Name: "get", Annotations: &mcp.ToolAnnotations{Title: "Ann"}}, "[MCP srv/get] Ann", "Ann"},
		{mcp.Tool{Name: "get"}, "[MCP srv/get]", "get"},
		{mcp.Tool{Name: "get", Description: "bad \xff byte"}, "[MCP srv/get] bad \uFFFD byte", "get"},
	} {
		def := tc.def
		def.InputSchema = objectSchema
		tool, err := New("srv", &def, textResult(""), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tool.Description() != tc.wantDesc {
			t.Errorf("Description = %q, want %q", tool.Description(), tc.wantDesc)
		}
		if tool.Title() != tc.wantTitle {
			t.Errorf("Title = %q, want %q", tool.Title(), tc.wantTitle)
		}
		if tool.Name() != PublicName("srv", "get") || tool.Server() != "srv" || tool.ToolName() != "get" || tool.Definition() != &def {
			t.Errorf("identity: %q %q %q", tool.Name(), tool.Server(), tool.ToolName())
		}
	}
}

// TestCallPassesArgumentsThrough: the model's bytes reach the caller as the
// same json.RawMessage, not decoded and re-encoded.
func TestCallPassesArgumentsThrough(t *testing.T) {
	args := json.RawMessage(` {"b": 1, "a": [1.50, "\u00e9"]} `)
	var got any
	var gotName string
	caller := callerFunc(func(_ context.Context, name string, a any) (*mcp.CallToolResult, error) {
		got, gotName = a, name
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	tool, err := New("s", &mcp.Tool{Name: "orig/name", InputSchema: objectSchema}, caller, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Call(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := got.(json.RawMessage)
	if !ok || &raw[0] != &args[0] || len(raw) != len(args) {
		t.Errorf("caller got %T %s, want the model's json.RawMessage itself", got, got)
	}
	if gotName != "orig/name" {
		t.Errorf("caller got tool name %q, want the original name", gotName)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "ok" || res.IsError {
		t.Errorf("result = %+v", res)
	}

	// No arguments at all: an empty object.
	if _, err := tool.Call(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if raw, _ := got.(json.RawMessage); string(raw) != "{}" {
		t.Errorf("nil arguments sent as %s, want {}", got)
	}
}

func TestCallRejectsNonObjectArguments(t *testing.T) {
	called := false
	caller := callerFunc(func(context.Context, string, any) (*mcp.CallToolResult, error) {
		called = true
		return &mcp.CallToolResult{}, nil
	})
	tool, _ := New("s", &mcp.Tool{Name: "t", InputSchema: objectSchema}, caller, Options{})
	for _, args := range []string{`[1]`, `"x"`, `{"a":`, `null`, `  `} {
		res, err := tool.Call(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if !res.IsError || !strings.Contains(res.Content[0].Text, "invalid arguments") {
			t.Errorf("%s: result %+v, want a tool error for the model", args, res)
		}
	}
	if called {
		t.Error("bad arguments reached the server")
	}
}

func TestCallErrorsAreGoErrors(t *testing.T) {
	boom := errors.New("connection reset")
	tool, _ := New("srv", &mcp.Tool{Name: "t", InputSchema: objectSchema}, callerFunc(func(context.Context, string, any) (*mcp.CallToolResult, error) {
		return nil, boom
	}), Options{})
	_, err := tool.Call(context.Background(), nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `tool "t" on server "srv"`) {
		t.Errorf("err = %v, want it wrapped with tool and server", err)
	}
	tool, _ = New("srv", &mcp.Tool{Name: "t", InputSchema: objectSchema}, callerFunc(func(context.Context, string, any) (*mcp.CallToolResult, error) {
		return nil, nil
	}), Options{})
	if _, err := tool.Call(context.Background(), nil); err == nil {
		t.Error("nil result without error: want an error")
	}
}

// TestCallRealServer: a go-sdk server receives the arguments and its result
// comes back converted.
func TestCallRealServer(t *testing.T) {
	p := newPeer(t, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes.", InputSchema: objectSchema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	})
	tools := p.tools(t)
	tool, err := New("everything", tools[0], p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Call(context.Background(), json.RawMessage(`{"msg":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Text != `{"msg":"hi"}` {
		t.Errorf("result = %+v", res)
	}
	if tool.Description() != "[MCP everything/echo] Echoes." {
		t.Errorf("description = %q", tool.Description())
	}
}

// TestServerDropsMidCall: the server goes away while a call runs; the call
// ends with an error instead of hanging.
func TestServerDropsMidCall(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	p := newPeer(t, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "slow", InputSchema: objectSchema}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, errors.New("released")
		})
	})
	t.Cleanup(func() { close(release) }) // runs before the peer's cleanup
	tool, err := New("s", p.tools(t)[0], p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := tool.Call(context.Background(), nil)
		done <- err
	}()
	<-started
	p.link.conn.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("call on a dropped server returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("call hung after the server went away")
	}
}

var _ core.Tool = (*Tool)(nil)
