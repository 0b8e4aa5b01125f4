package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/apps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolApp says whether a tool has an app, for ToolInfo.App.
func toolApp(t *mcp.Tool) *protocol.ToolApp {
	ui := apps.Tool(t)
	if !ui.HasApp() {
		return nil
	}
	return &protocol.ToolApp{ResourceURI: ui.ResourceURI, Visibility: append([]string{}, ui.Visibility...)}
}

// attachApp gives a run's event about a call of a tool with an app the
// call's app instance (the same for the call's tool_call, permission and
// tool_result events), and starts reading the app's UI resource so that
// the UI's app.read_resource finds it ready.
func (s *service) attachApp(p *protocol.AgentEventParams, snap *adapter.Snapshot, runID, conv string) {
	if p.Call == nil || p.Call.Unknown || snap == nil {
		return
	}
	t, ok := snap.Tool(p.Call.PublicName)
	if !ok {
		return
	}
	ui := apps.Tool(t.Definition())
	if !ui.HasApp() {
		return
	}
	in := s.apps.reg.Open(apps.Instance{Server: t.Server(), Tool: t.ToolName(), URI: ui.ResourceURI,
		RunID: runID, CallID: p.Call.ID, Conversation: conv})
	p.Call.App = wireInstance(in)
	if p.Type == protocol.EventToolCall {
		go s.prefetchApp(in)
	}
}

// openDirectApp opens the app instance of a direct tool.call of a tool
// with an app, or returns nil.
func (s *service) openDirectApp(server, tool string) *protocol.AppInstance {
	tools, err := s.m.Tools(server)
	if err != nil {
		return nil
	}
	for _, t := range tools {
		if t.Name != tool {
			continue
		}
		ui := apps.Tool(t)
		if !ui.HasApp() {
			return nil
		}
		in := s.apps.reg.Open(apps.Instance{Server: server, Tool: tool, URI: ui.ResourceURI})
		go s.prefetchApp(in)
		return wireInstance(in)
	}
	return nil
}

// prefetchApp reads an app's UI resource into the cache. A refused
// resource is reported to the UI as a warning naming server, tool and URI
// (app.read_resource answers with the same error).
func (s *service) prefetchApp(in apps.Instance) {
	sess, err := s.m.Session(in.Server)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = s.apps.cache.Get(ctx, sess, apps.Ref{Server: in.Server, Tool: in.Tool, URI: in.URI})
	// Only a refusal is news: a failed read (the server went away, say)
	// is the answer app.read_resource gives when the UI asks.
	for _, refused := range []error{apps.ErrWrongMIME, apps.ErrTooLarge, apps.ErrNotUI, apps.ErrNoContent} {
		if errors.Is(err, refused) {
			s.logUI("warn", in.Server, fmt.Sprintf("MCP App not shown: %v", err))
			return
		}
	}
}

// appAsking returns the app on whose behalf the gate asks (app.call_tool,
// an app's resource read) and the confirm's message for it, or nil and
// msg unchanged for the model's and the user's own calls.
func appAsking(ctx context.Context, tool, msg string) (*protocol.AppConfirm, string) {
	app, _ := ctx.Value(appKey{}).(*protocol.AppConfirm)
	if app == nil {
		return nil, msg
	}
	return app, fmt.Sprintf("The app of tool %q (MCP server %q) wants to call tool %q of the same server.", app.Tool, app.Server, tool)
}

func wireUIMeta(m *apps.UIMeta) *protocol.AppUIMeta {
	if m == nil {
		return nil
	}
	out := &protocol.AppUIMeta{Domain: m.Domain, PrefersBorder: m.PrefersBorder}
	if c := m.CSP; c != nil {
		out.CSP = &protocol.AppCSP{ConnectDomains: c.ConnectDomains, ResourceDomains: c.ResourceDomains,
			FrameDomains: c.FrameDomains, BaseURIDomains: c.BaseURIDomains}
	}
	if p := m.Permissions; p != nil {
		out.Permissions = &protocol.AppPermissions{Camera: p.Camera != nil, Microphone: p.Microphone != nil,
			Geolocation: p.Geolocation != nil, ClipboardWrite: p.ClipboardWrite != nil}
	}
	return out
}

// newCheckOnlyTool adapts a synthetic tool that exists only to be put
// before the gate.
func newCheckOnlyTool(server string, def *mcp.Tool) (*adapter.Tool, error) {
	return adapter.New(server, def, checkOnly{}, adapter.Options{})
}

type checkOnly struct{}

func (checkOnly) CallTool(context.Context, string, any) (*mcp.CallToolResult, error) {
	return nil, errors.New("not callable")
}
