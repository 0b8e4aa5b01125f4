package scripted_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/scripted"
)

// tools is what the runtime offers a run: public names, and descriptions
// that start with the tool's origin.
var tools = []core.ToolDef{
	{Name: "mcp_everything_echo_0307fdcf", Description: "[MCP everything/echo] Echoes back the input string"},
	{Name: "mcp_everything_get_sum_0994ce9f", Description: "[MCP everything/get-sum]"},
	{Name: "mcp_other_echo_12345678", Description: "[MCP other/echo] Another echo"},
	{Name: "mcp_twin_a_b_c_11111111", Description: "[MCP twin/a/b] x"},
	{Name: "mcp_twin_a_b_c_22222222", Description: "[MCP twin/a/b] y"},
	{Name: "read_resource", Description: "Reads a resource"},
}

// A call may name its tool as server/tool; the model then calls the public
// name the run offers for it. A public name, an unknown name and an
// ambiguous one are sent as written (the run reports them unknown).
func TestCallsByServerSlashTool(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{
		{Name: "everything/get-sum", Args: []byte(`{"a":1}`)},
		{Name: "mcp_everything_echo_0307fdcf"},
		{Name: "other/echo"},
		{Name: "nowhere/echo"},
		{Name: "twin/a/b"},
		{Name: "everything/ech"},
		{Name: "read_resource"},
	}})
	resp, err := p.Stream(context.Background(), core.Request{Tools: tools}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range resp.ToolCalls {
		got = append(got, c.Name)
	}
	want := "mcp_everything_get_sum_0994ce9f mcp_everything_echo_0307fdcf mcp_other_echo_12345678 nowhere/echo twin/a/b everything/ech read_resource"
	if strings.Join(got, " ") != want {
		t.Errorf("calls = %q\nwant    %q", got, want)
	}
}

func userReq(prompt string) core.Request {
	return core.Request{Tools: tools, Messages: []core.Message{{Role: core.RoleSystem, Content: "sys"}, {Role: core.RoleUser, Content: prompt}}}
}

// next is the request of a run's next model call: its first request, the
// model's calls and a tool result.
func next(first core.Request, result string) core.Request {
	msgs := append(append([]core.Message(nil), first.Messages...),
		core.Message{Role: core.RoleAssistant, ToolCalls: []core.ToolCall{{ID: "1", Name: "x"}}},
		core.Message{Role: core.RoleTool, Content: result, ToolCallID: "1"})
	return core.Request{Tools: first.Tools, Messages: msgs}
}

// With the runs form, every run plays its own copy of the steps of the
// first entry whose prompt_contains its prompt holds: two runs at once do
// not take each other's steps, a run that ended early (a deny) leaves
// nothing behind for the next, and the same prompt plays again.
func TestEachRunHasItsOwnQueue(t *testing.T) {
	steps, err := scripted.Parse([]byte(`{"runs":[
		{"prompt_contains":"sum","steps":[
			{"calls":[{"name":"everything/get-sum","args":{"a":1,"b":2}}]},
			{"when_result_contains":"denied","text":"not summed"},
			{"text":"summed"}]},
		{"steps":[{"text":"hello there"}]}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := scripted.New(steps...)
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()

	a1 := userReq("please sum")
	resp, err := p.Stream(ctxA, a1, nil)
	if err != nil || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "mcp_everything_get_sum_0994ce9f" {
		t.Fatalf("run A step 1 = %+v, %v", resp, err)
	}
	// Run B starts while A waits for its tool: it plays its own steps.
	b1 := userReq("please sum too")
	if resp, err = p.Stream(ctxB, b1, nil); err != nil || len(resp.ToolCalls) != 1 {
		t.Fatalf("run B step 1 = %+v, %v; want its own first step", resp, err)
	}
	if resp, err = p.Stream(ctxA, next(a1, "The sum is 3"), nil); err != nil || resp.Text != "summed" {
		t.Fatalf("run A step 2 = %+v, %v", resp, err)
	}
	if resp, err = p.Stream(ctxB, next(b1, "Error: the user denied this call"), nil); err != nil || resp.Text != "not summed" {
		t.Fatalf("run B step 2 = %+v, %v", resp, err)
	}
	cancelA()
	// A third run on another prompt takes the entry without a condition;
	// a fourth "sum" run starts from the top again.
	if resp, err = p.Stream(context.Background(), userReq("hi"), nil); err != nil || resp.Text != "hello there" {
		t.Fatalf("run C = %+v, %v", resp, err)
	}
	ctxD, cancelD := context.WithCancel(context.Background())
	defer cancelD()
	if resp, err = p.Stream(ctxD, userReq("sum again"), nil); err != nil || len(resp.ToolCalls) != 1 {
		t.Fatalf("run D = %+v, %v", resp, err)
	}
}

// A run whose prompt no entry matches fails saying so; a run that has
// played its steps fails as the array form does.
func TestRunsFormNoMatch(t *testing.T) {
	steps, err := scripted.Parse([]byte(`{"runs":[{"prompt_contains":"sum","steps":[{"calls":[{"name":"x"}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := scripted.New(steps...)
	if _, err := p.Stream(context.Background(), userReq("hello"), nil); err == nil || !strings.Contains(err.Error(), `"hello"`) {
		t.Errorf("unmatched prompt: err = %v, want one quoting the prompt", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := userReq("sum")
	if _, err := p.Stream(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(ctx, next(first, "3"), nil); err == nil || !strings.Contains(err.Error(), "no matching step left") {
		t.Errorf("past the run's steps: err = %v", err)
	}
}

// The runs form is checked like the array form: unknown fields, a run
// without steps and a call without a name are errors naming the place.
func TestParseRunsForm(t *testing.T) {
	for bad, want := range map[string]string{
		`{"runs":[{"prompt":"x","steps":[{"text":"a"}]}]}`: `"prompt"`,
		`{"run":[]}`:                                     `"run"`,
		`{"runs":[{"prompt_contains":"x"}]}`:             "run 0: no steps",
		`{"runs":[{"steps":[{"calls":[{"args":{}}]}]}]}`: "run 0, step 0, call 0",
		`{"runs":[]}`:                                    "no runs",
	} {
		if _, err := scripted.Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s): err = %v, want one with %s", bad, err, want)
		}
	}
}

// The array form is one queue that successive model calls take steps from,
// whichever run makes them: a second run started while the first waits
// takes the first run's next step. (This is why the runs form exists.)
func TestArrayFormIsOneQueue(t *testing.T) {
	p := scripted.New(scripted.CallTool("x", `{}`), scripted.Say("first run's answer"), scripted.Say("second"))
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	a1 := userReq("a")
	if _, err := p.Stream(ctxA, a1, nil); err != nil {
		t.Fatal(err)
	}
	if resp, err := p.Stream(ctxB, userReq("b"), nil); err != nil || resp.Text != "first run's answer" {
		t.Fatalf("second run = %+v, %v; want the shared queue's next step", resp, err)
	}
}
