package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type memKeeper struct{ buf bytes.Buffer }

func (k *memKeeper) Keep(_, _ string, write func(io.Writer) error) (Kept, error) {
	if err := write(&k.buf); err != nil {
		return Kept{}, err
	}
	return Kept{ID: "r1", Bytes: int64(k.buf.Len()), Lines: bytes.Count(k.buf.Bytes(), []byte("\n")) + 1}, nil
}

type bigCaller struct{ text string }

func (c bigCaller) CallTool(context.Context, string, any) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: c.text}}}, nil
}

// TestCutResultIsKeptWhole: under a keeper, a result over the budget is
// kept whole and the note names the read tool, the id and where the
// shown part ends; a result within the budget is not kept.
func TestCutResultIsKeptWhole(t *testing.T) {
	whole := strings.Repeat("line of text\n", 100)
	tool, err := New("s", &mcp.Tool{Name: "big"}, bigCaller{whole}, Options{MaxOutputBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	k := &memKeeper{}
	res, err := tool.Call(WithKeeper(context.Background(), k), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if k.buf.String() != whole {
		t.Errorf("kept %d bytes, want the whole %d", k.buf.Len(), len(whole))
	}
	if len(res.Content) != 2 || res.Content[0].Text != whole[:100] {
		t.Fatalf("content %+v", res.Content)
	}
	note := res.Content[1].Text
	for _, want := range []string{"first 100 of 1300 bytes", `id "r1"`, ResultReadTool, `"offset": 100`} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	small, _ := New("s", &mcp.Tool{Name: "small"}, bigCaller{"hi"}, Options{MaxOutputBytes: 100})
	k2 := &memKeeper{}
	if _, err := small.Call(WithKeeper(context.Background(), k2), json.RawMessage(`{}`)); err != nil || k2.buf.Len() != 0 {
		t.Errorf("a result within the budget was kept (%d bytes, %v)", k2.buf.Len(), err)
	}
}

// TestOutputBudgetInTokens: the budget in tokens is 4 bytes a token
// within the byte ceiling; without one the byte budget applies.
func TestOutputBudgetInTokens(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want int
	}{
		{Options{}, 100_000},
		{Options{MaxOutputBytes: 500}, 500},
		{Options{MaxOutputTokens: 1000}, 4000},
		{Options{MaxOutputTokens: 1_000_000}, MaxOutputCeilingBytes},
		{Options{MaxOutputTokens: 1000, MaxOutputBytes: 1000}, 1000},
	} {
		if got := c.o.OutputBudget(); got != c.want {
			t.Errorf("%+v: budget %d, want %d", c.o, got, c.want)
		}
	}
}
