package adapter

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peer is a real go-sdk server and client connected in memory: what the
// adapter sees is what went over the JSON-RPC wire.
type peer struct {
	client *mcp.ClientSession
	server *mcp.ServerSession
	// link is the server's end of the connection; closing it drops the
	// server the way a dead process or network would.
	link *cuttable
}

// cuttable is a transport whose connection the test can cut.
type cuttable struct {
	mcp.Transport
	conn mcp.Connection
}

func (c *cuttable) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	c.conn = conn
	return conn, err
}

func newPeer(t *testing.T, setup func(s *mcp.Server)) *peer {
	t.Helper()
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1"}, nil)
	setup(srv)
	ct, st := mcp.NewInMemoryTransports()
	link := &cuttable{Transport: st}
	ss, err := srv.Connect(ctx, link, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return &peer{client: cs, server: ss, link: link}
}

// CallTool makes the peer's client session a Caller, as the runtime's
// session is.
func (p *peer) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	return p.client.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// tools lists the server's tools through the client.
func (p *peer) tools(t *testing.T) []*mcp.Tool {
	t.Helper()
	res, err := p.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	return res.Tools
}

// callerFunc is an in-memory Caller.
type callerFunc func(ctx context.Context, name string, args any) (*mcp.CallToolResult, error)

func (f callerFunc) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	return f(ctx, name, args)
}

// textResult is a caller that answers every call with one text block.
func textResult(text string) callerFunc {
	return func(context.Context, string, any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
}

// objectSchema is a minimal valid input schema.
var objectSchema = json.RawMessage(`{"type":"object"}`)
