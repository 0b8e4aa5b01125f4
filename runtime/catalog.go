package runtime

import (
	"context"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Catalog adapts the tools of every ready server, and the kept catalogs of
// lazy servers that are not running, into one snapshot for a run. Other
// servers contribute nothing; local names are kept free of collisions. Problems (skipped tools, renamed tools) are returned
// alongside, each naming its server.
func (m *Manager) Catalog(opts adapter.Options, local []string) (*adapter.Snapshot, []string) {
	var cats []*adapter.Catalog
	var problems []string
	for _, st := range m.List() {
		sv, err := m.server(st.ID)
		if err != nil {
			continue // went away since List
		}
		defs, cached := sv.offered(st.State)
		if defs == nil {
			continue
		}
		// The server's include/exclude filters apply in the adapter.
		cat, err := sv.catalog(defs, cached, opts)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		problems = append(problems, cat.Problems...)
		cats = append(cats, cat)
	}
	snap := adapter.NewSnapshot(cats, local)
	for _, r := range snap.Renamed {
		problems = append(problems, "renamed: "+r)
	}
	return snap, problems
}

// Caller returns the caller that the adapted tools of server use: it calls
// them through [Manager.CallTool], under the hook of [WithToolCallHook].
func (m *Manager) Caller(server string) adapter.Caller {
	return serverCaller{m, server}
}

// serverCaller calls the tools of one server through the manager, so that
// every adapter call gets the server's filters, timeout and health check.
type serverCaller struct {
	m  *Manager
	id string
}

func (c serverCaller) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	if hook, ok := ctx.Value(toolCallHookKey{}).(ToolCallHook); ok && hook != nil {
		ctx = hook(ctx, c.id, name, args)
	}
	return c.m.CallTool(ctx, c.id, name, args)
}

// A ToolCallHook returns the context for one call of server's tool with
// args, made by an adapted tool (see [Manager.Caller]), just before the
// manager makes it: an agent run listens there for the call's progress.
type ToolCallHook func(ctx context.Context, server, tool string, args any) context.Context

type toolCallHookKey struct{}

// WithToolCallHook returns ctx with hook applied to every call the adapted
// tools of the manager make under it; it replaces a hook ctx already has.
func WithToolCallHook(ctx context.Context, hook ToolCallHook) context.Context {
	return context.WithValue(ctx, toolCallHookKey{}, hook)
}
