package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
)

type upperTool struct{}

func (upperTool) Name() string            { return "upper" }
func (upperTool) Description() string     { return "upper-cases text" }
func (upperTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (upperTool) Call(_ context.Context, args json.RawMessage) (*core.Result, error) {
	var in struct{ Text string }
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("upper: %w", err)
	}
	return core.TextResult(strings.ToUpper(in.Text)), nil
}

// A run with a scripted model: the model calls a tool, the hook allows it,
// and the model answers once it sees the result.
func ExampleRun() {
	var reg core.Registry
	if err := reg.Add(upperTool{}); err != nil {
		panic(err)
	}
	model := scripted.New(
		scripted.CallTool("upper", `{"text":"hello"}`),
		scripted.Step{WhenResultContains: "HELLO", Text: "It says HELLO."},
	)
	res, err := core.Run(context.Background(), core.RunOptions{
		Provider: model,
		Messages: []core.Message{{Role: core.RoleUser, Content: "shout hello"}},
		Tools:    reg.Snapshot(),
		Permission: func(ctx context.Context, req core.PermissionRequest) (core.PermissionDecision, error) {
			return core.Allow(), nil
		},
		OnEvent: func(ev core.Event) {
			switch ev.Type {
			case core.EventToolCall:
				fmt.Printf("call %s %s\n", ev.Call.Name, ev.Call.Args)
			case core.EventToolResult:
				fmt.Printf("result %s\n", core.RenderResult(ev.Result))
			case core.EventStatus:
				fmt.Printf("status %s\n", ev.Status)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output:
	// status running
	// call upper {"text":"hello"}
	// result HELLO
	// status completed
	// It says HELLO.
}
