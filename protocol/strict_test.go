package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestStrictRefusesUnknownFields(t *testing.T) {
	var got *ToolCallParams
	h := strict(MethodToolCall, func(_ context.Context, p *ToolCallParams) (*Empty, error) { got = p; return &Empty{}, nil })
	_, err := h(context.Background(), json.RawMessage(`{"server":"s","tool":"t","args":{"a":1}}`))
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeInvalidParams || DataOf(err).Field != "args" || !strings.Contains(pe.Message, `did you mean "arguments"?`) {
		t.Fatalf("args: %v (%+v)", err, pe)
	}
	if got != nil {
		t.Fatal("the method ran with an unknown field")
	}
	if _, err := h(context.Background(), json.RawMessage(`{"server":"s","tool":"t","arguments":{"a":1}}`)); err != nil || got == nil || string(got.Arguments) != `{"a":1}` {
		t.Fatalf("arguments: %v %+v", err, got)
	}
	if _, err := h(context.Background(), json.RawMessage(`{"server":7}`)); !errors.As(err, &pe) || DataOf(err).Field != "server" {
		t.Fatalf("a mistyped field is still reported as such: %v", err)
	}
}
