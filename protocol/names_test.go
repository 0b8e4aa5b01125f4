package protocol_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// TestEveryRequestRefusesUnknownFields: a params field a request does not
// take is -32602 naming it, in every request a UI sends, initialize,
// prompts.*, resources.*, registry.* and mcp.permissions.* included.
func TestEveryRequestRefusesUnknownFields(t *testing.T) {
	h := protocol.ServerHandler(stubServer{})
	n := 0
	for _, m := range protocol.Methods {
		if m.Direction != protocol.UIToRuntime {
			continue
		}
		n++
		_, err := h(context.Background(), m.Name, json.RawMessage(`{"bogus_field":1}`))
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidParams || protocol.DataOf(err).Field != "bogus_field" {
			t.Errorf("%s with an unknown field: %v, want -32602 naming it", m.Name, err)
		}
	}
	if n < 30 {
		t.Fatalf("only %d requests in protocol.Methods", n)
	}
	// initialize's capabilities stay open: a newer UI may declare more.
	if _, err := h(context.Background(), protocol.MethodInitialize, json.RawMessage(`{"protocol_version":"x","capabilities":{"confirm":true,"from_the_future":true}}`)); err != nil {
		t.Errorf("initialize with a capability this runtime does not know: %v", err)
	}
}

// TestServerAlias: the mcp.* requests name their server "server", as every
// other request does; "id" is its alias for one protocol version, and
// both with different values is -32602.
func TestServerAlias(t *testing.T) {
	var got string
	rec := recordingServer{got: &got}
	h := protocol.ServerHandler(rec)
	for _, m := range []string{protocol.MethodMCPGet, protocol.MethodMCPReconnect, protocol.MethodMCPEnable, protocol.MethodMCPDisable,
		protocol.MethodMCPLogin, protocol.MethodMCPLogout, protocol.MethodMCPApprove} {
		for _, params := range []string{`{"server":"a"}`, `{"id":"a"}`, `{"server":"a","id":"a"}`} {
			got = ""
			if _, err := h(context.Background(), m, json.RawMessage(params)); err != nil || got != "a" {
				t.Errorf("%s %s: server %q, err %v; want \"a\"", m, params, got, err)
			}
		}
		got = ""
		_, err := h(context.Background(), m, json.RawMessage(`{"server":"a","id":"b"}`))
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidParams || protocol.DataOf(err).Field != "id" || !strings.Contains(perr.Message, `give "server" only`) || got != "" {
			t.Errorf("%s with server and id differing: %v (ran with %q)", m, err, got)
		}
	}
	// A Go UI sends the new name.
	b, _ := json.Marshal(&protocol.ServerParams{ID: "a"})
	if string(b) != `{"server":"a"}` {
		t.Errorf("ServerParams marshals as %s", b)
	}
}

// recordingServer records the server a request named.
type recordingServer struct {
	stubServer
	got *string
}

func (r recordingServer) MCPGet(_ context.Context, p *protocol.ServerParams) (*protocol.MCPGetResult, error) {
	*r.got = p.ID
	return &protocol.MCPGetResult{}, nil
}
func (r recordingServer) MCPReconnect(_ context.Context, p *protocol.ServerParams) (*protocol.ServerResult, error) {
	*r.got = p.ID
	return &protocol.ServerResult{}, nil
}
func (r recordingServer) MCPEnable(_ context.Context, p *protocol.ServerParams) (*protocol.ServerResult, error) {
	*r.got = p.ID
	return &protocol.ServerResult{}, nil
}
func (r recordingServer) MCPDisable(_ context.Context, p *protocol.ServerParams) (*protocol.ServerResult, error) {
	*r.got = p.ID
	return &protocol.ServerResult{}, nil
}
func (r recordingServer) MCPLogin(_ context.Context, p *protocol.LoginParams) (*protocol.ServerResult, error) {
	*r.got = p.ID
	return &protocol.ServerResult{}, nil
}
func (r recordingServer) MCPLogout(_ context.Context, p *protocol.LogoutParams) (*protocol.ServerResult, error) {
	*r.got = p.ID
	return &protocol.ServerResult{}, nil
}
func (r recordingServer) MCPApprove(_ context.Context, p *protocol.ApproveParams) (*protocol.ServerResult, error) {
	*r.got = p.ID
	return &protocol.ServerResult{}, nil
}
