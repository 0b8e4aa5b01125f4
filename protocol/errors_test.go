package protocol_test

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestParamsErrors: missing and mistyped params are CodeInvalidParams
// with one sentence naming the field, no Go terms, and data naming the
// kind, method and field.
func TestParamsErrors(t *testing.T) {
	h := protocol.ServerHandler(&fakeServer{})
	goTerms := regexp.MustCompile(`Go (struct|value)|unmarshal|protocol\.`)
	for _, c := range []struct{ method, params, field string }{
		{protocol.MethodMCPGet, ``, "server"},
		{protocol.MethodMCPGet, `{"server":""}`, "server"},
		{protocol.MethodMCPGet, `{"id":""}`, "server"},
		{protocol.MethodMCPGet, `{"id":true}`, "id"},
		{protocol.MethodMCPGet, `{"server":true}`, "server"},
		{protocol.MethodToolCall, `{"tool":"x"}`, "server"},
		{protocol.MethodRunCancel, `{}`, "run_id"},
		{protocol.MethodToolsList, `[1]`, ""},
		{protocol.MethodToolsList, `{`, ""},
	} {
		_, err := h(context.Background(), c.method, []byte(c.params))
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidParams {
			t.Errorf("%s %s: %v, want -32602", c.method, c.params, err)
			continue
		}
		d := protocol.DataOf(err)
		if d.Kind != protocol.KindInvalidParams || d.Method != c.method || (c.field != "" && d.Field != c.field) {
			t.Errorf("%s %s: data %+v, want field %q", c.method, c.params, d, c.field)
		}
		if goTerms.MatchString(perr.Message) {
			t.Errorf("%s %s: message %q has Go terms", c.method, c.params, perr.Message)
		}
	}
}
