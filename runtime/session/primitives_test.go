package session_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that declares neither completions nor resource subscriptions
// is not asked for them: the error says what it does not offer.
func TestCompleteAndSubscribeRespectCapabilities(t *testing.T) {
	ts := newTestServer(t)
	s := connect(t, session.Options{ID: "plain", Transport: session.TransportHTTP, URL: ts.url()})
	_, err := s.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteParamsArgument{Name: "a"}})
	if err == nil || !strings.Contains(err.Error(), `server "plain" does not offer completions`) {
		t.Errorf("complete: err = %v", err)
	}
	if err := s.Subscribe(context.Background(), "file:///x"); err == nil || !strings.Contains(err.Error(), "does not offer resource subscriptions") {
		t.Errorf("subscribe: err = %v", err)
	}
}
