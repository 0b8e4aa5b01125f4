package permission

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// trivialCaller is the cheapest possible session: the benchmark measures
// what the adapter and gate add, not the network.
type trivialCaller struct{ res *mcp.CallToolResult }

func (c trivialCaller) CallTool(context.Context, string, any) (*mcp.CallToolResult, error) {
	return c.res, nil
}

// benchCaller is a package variable so the direct call cannot be
// devirtualized and inlined away.
var benchCaller adapter.Caller

// BenchmarkCallOverhead reports, in one run, a call straight to the caller
// (the session) and the same call through adapter + gate with an allow
// rule; their ratio is the overhead per call.
func BenchmarkCallOverhead(b *testing.B) {
	caller := trivialCaller{&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "result text of an ordinary size"}}}}
	def := &mcp.Tool{Name: "read_file", Description: "Reads a file.", InputSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}},
	}}
	argsJSON := json.RawMessage(`{"path":"/home/user/project/README.md"}`)
	ctx := context.Background()

	b.Run("direct", func(b *testing.B) {
		benchCaller = caller // through an interface, as the adapter calls it
		b.ReportAllocs()
		for b.Loop() {
			if _, err := benchCaller.CallTool(ctx, "read_file", argsJSON); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("adapter+gate", func(b *testing.B) {
		tool, err := adapter.New("fs", def, caller, adapter.Options{})
		if err != nil {
			b.Fatal(err)
		}
		g, err := New(Options{Allow: []Rule{{Server: "fs", Tool: "read_*"}}, Confirmer: &recorder{}})
		if err != nil {
			b.Fatal(err)
		}
		w := g.Wrap(tool)
		b.ReportAllocs()
		for b.Loop() {
			res, err := w.Call(ctx, argsJSON)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	// A remembered "always allow this tool" in a permissions file: each
	// call stats the file (another process may have revoked the answer).
	b.Run("adapter+gate-remembered", func(b *testing.B) {
		tool, err := adapter.New("fs", def, caller, adapter.Options{})
		if err != nil {
			b.Fatal(err)
		}
		store, err := OpenStore(filepath.Join(b.TempDir(), "permissions.json"))
		if err != nil {
			b.Fatal(err)
		}
		if err := store.AllowTool("fs", "read_file", Digest(tool.Definition())); err != nil {
			b.Fatal(err)
		}
		g, err := New(Options{Store: store, Confirmer: &recorder{}})
		if err != nil {
			b.Fatal(err)
		}
		w := g.Wrap(tool)
		b.ReportAllocs()
		for b.Loop() {
			res, err := w.Call(ctx, argsJSON)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})

	// The same comparison over a real go-sdk session (in-memory transport):
	// this is the ratio the overhead target is about.
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	srv.AddTool(def, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return caller.res, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cs.Close(); ss.Close() }()
	session := sessionCaller{cs}
	b.Run("session-direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := session.CallTool(ctx, "read_file", argsJSON); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("session-adapter+gate", func(b *testing.B) {
		tool, err := adapter.New("fs", def, session, adapter.Options{})
		if err != nil {
			b.Fatal(err)
		}
		g, err := New(Options{Allow: []Rule{{Server: "fs", Tool: "read_*"}}, Confirmer: &recorder{}})
		if err != nil {
			b.Fatal(err)
		}
		w := g.Wrap(tool)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.Call(ctx, argsJSON); err != nil {
				b.Fatal(err)
			}
		}
	})
}
