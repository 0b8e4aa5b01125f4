package resources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/resources"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// connect serves s over Streamable HTTP and returns a session to it.
func connect(t *testing.T, id string, s *mcp.Server) resources.Source {
	t.Helper()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	sess, err := session.Connect(context.Background(), session.Options{ID: id, URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return resources.Source{Server: id, Session: sess}
}

func docs() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	s.AddResource(&mcp.Resource{URI: "file:///readme.md", Name: "readme", MIMEType: "text/markdown"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Read me\n" + strings.Repeat("x", 5000)}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + req.Params.Arguments["who"]}}}}, nil
	})
	return s
}

func text(r *core.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func tool(t *testing.T, tools []core.Tool, name string) core.Tool {
	t.Helper()
	for _, x := range tools {
		if x.Name() == name {
			return x
		}
	}
	return nil
}

func TestToolsFollowCapabilitiesAndAreGated(t *testing.T) {
	toolsOnly := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	mcp.AddTool(toolsOnly, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	sources := []resources.Source{connect(t, "docs", docs()), connect(t, "bare", toolsOnly)}
	gate, err := permission.New(permission.Options{
		Allow:          []permission.Rule{{Server: "docs", Tool: "resources/*"}, {Server: "docs", Tool: "prompts/*"}},
		NonInteractive: permission.PolicyRulesOnly,
	})
	if err != nil {
		t.Fatal(err)
	}
	tools := resources.Tools(sources, gate, 1000)
	var names []string
	for _, x := range tools {
		names = append(names, x.Name())
		if strings.Contains(string(x.Schema()), `"bare"`) {
			t.Errorf("%s offers the server without resources or prompts", x.Name())
		}
	}
	if strings.Join(names, ",") != "mcp_resources_list,mcp_resource_templates_list,mcp_resource_read,mcp_prompts_list,mcp_prompt_get" {
		t.Fatalf("tools: %v (no skills tools: no server declares the extension)", names)
	}
	ctx := context.Background()

	res, err := tool(t, tools, "mcp_resources_list").Call(ctx, json.RawMessage(`{}`))
	if err != nil || res.IsError || !strings.Contains(text(res), "file:///readme.md") {
		t.Fatalf("resources list: %+v %v", res, err)
	}
	res, err = tool(t, tools, "mcp_resource_read").Call(ctx, json.RawMessage(`{"server":"docs","uri":"file:///readme.md"}`))
	if err != nil || res.IsError || !strings.Contains(text(res), "# Read me") {
		t.Fatalf("resource read: %+v %v", res, err)
	}
	if n := len(text(res)); n > 1200 {
		t.Errorf("result of %d bytes not bounded to about 1000", n)
	}
	res, err = tool(t, tools, "mcp_prompt_get").Call(ctx, json.RawMessage(`{"server":"docs","name":"greet","arguments":{"who":"Ada"}}`))
	if err != nil || res.IsError || !strings.Contains(text(res), "Say hello to Ada") {
		t.Fatalf("prompt get: %+v %v", res, err)
	}

	// A deny rule wins over the allow rule, and the model is told so.
	strict, _ := permission.New(permission.Options{
		Deny:           []permission.Rule{{Server: "docs", Tool: "resources/read"}},
		Allow:          []permission.Rule{{Server: "docs"}},
		NonInteractive: permission.PolicyRulesOnly,
	})
	res, err = tool(t, resources.Tools(sources, strict, 0), "mcp_resource_read").Call(ctx, json.RawMessage(`{"server":"docs","uri":"file:///readme.md"}`))
	if err != nil || !res.IsError || strings.Contains(text(res), "Read me") || !strings.Contains(text(res), "denied by rule docs/resources/read") {
		t.Fatalf("denied read: %+v %v", res, err)
	}
	res, err = tool(t, tools, "mcp_resource_read").Call(ctx, json.RawMessage(`{"server":"nope","uri":"x"}`))
	if err == nil && !res.IsError {
		t.Errorf("a read on an unknown server succeeded: %+v", res)
	}
}

// A resource or prompt far over what the model is shown (its text is cut
// at the output bound) is refused while it is read, not read whole: a
// 6 MiB resource or prompt fails naming the bound.
func TestHugeResourceAndPromptAreRefusedWhileRead(t *testing.T) {
	huge := strings.Repeat("x", 6<<20)
	s := mcp.NewServer(&mcp.Implementation{Name: "huge", Version: "1"}, nil)
	s.AddResource(&mcp.Resource{URI: "file:///huge.txt", Name: "huge"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: huge}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "huge"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: huge}}}}, nil
	})
	gate, err := permission.New(permission.Options{Allow: []permission.Rule{{Server: "huge"}}, NonInteractive: permission.PolicyRulesOnly})
	if err != nil {
		t.Fatal(err)
	}
	tools := resources.Tools([]resources.Source{connect(t, "huge", s)}, gate, 0)
	for name, args := range map[string]string{
		"mcp_resource_read": `{"server":"huge","uri":"file:///huge.txt"}`,
		"mcp_prompt_get":    `{"server":"huge","name":"huge"}`,
	} {
		res, err := tool(t, tools, name).Call(context.Background(), json.RawMessage(args))
		got := fmt.Sprint(err)
		if res != nil {
			got += " " + text(res)
		}
		if err == nil && (res == nil || !res.IsError) || !strings.Contains(got, "cap") && !strings.Contains(got, "bound") {
			t.Errorf("%s: %.300s, want it refused over the bound", name, got)
		}
	}
}
