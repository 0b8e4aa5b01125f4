package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/apps"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var _ protocol.AppServer = (*service)(nil)

// appState is the MCP Apps state of one UI connection: the app instances
// it was told about and the UI resources read for them. Its zero value is
// ready.
type appState struct {
	reg   apps.Registry
	cache apps.Cache
}

// maxAppMessageBytes bounds the text of an app's message.
const maxAppMessageBytes = 64 << 10

// appConsentTimeout bounds the wait for the user's answer about an app's
// message or link.
const appConsentTimeout = 5 * time.Minute

// appKey is the context key of the *protocol.AppConfirm of an app's tool
// call, for the confirm that the gate may ask.
type appKey struct{}

// instance returns an open app instance, or CodeUnknownApp.
func (s *service) instance(id string) (apps.Instance, error) {
	in, ok := s.apps.reg.Get(id)
	if !ok {
		return apps.Instance{}, protocol.NewError(protocol.CodeUnknownApp, protocol.ErrorData{AppID: id},
			"no app instance %q: it was never opened, or was closed", id)
	}
	return in, nil
}

func wireInstance(in apps.Instance) *protocol.AppInstance {
	return &protocol.AppInstance{ID: in.ID, Server: in.Server, Tool: in.Tool, ResourceURI: in.URI,
		RunID: in.RunID, CallID: in.CallID, Conversation: in.Conversation}
}

// readyServer returns CodeNotReady unless the app's server is ready.
func (s *service) readyServer(in apps.Instance) error {
	st, err := s.status(in.Server)
	if err != nil {
		return err
	}
	if st.State != runtime.StateReady {
		return protocol.NewError(protocol.CodeNotReady, protocol.ErrorData{Server: in.Server, State: string(st.State), AppID: in.ID},
			"server %q is %s, not ready%s", in.Server, st.State, suffix(st.LastError))
	}
	return nil
}

// AppReadResource serves the app's UI resource (checked and cached), or
// reads another resource of the app's server, gated like the model's
// resource reads.
func (s *service) AppReadResource(ctx context.Context, p *protocol.AppReadResourceParams) (*protocol.AppReadResourceResult, error) {
	in, err := s.instance(p.AppID)
	if err != nil {
		return nil, err
	}
	if err := s.readyServer(in); err != nil {
		return nil, err
	}
	sess, err := s.m.Session(in.Server)
	if err != nil {
		return nil, protocol.NewError(protocol.CodeNotReady, protocol.ErrorData{Server: in.Server, AppID: in.ID}, "%v", err)
	}
	data := protocol.ErrorData{Server: in.Server, Tool: in.Tool, AppID: in.ID, URI: p.URI}
	if p.URI == "" || p.URI == in.URI {
		data.URI = in.URI
		res, err := s.apps.cache.Get(ctx, sess, apps.Ref{Server: in.Server, Tool: in.Tool, URI: in.URI})
		if err != nil {
			s.log.Warn("app resource refused", "server", in.Server, "tool", in.Tool, "error", err)
			return nil, protocol.NewError(protocol.CodeFailed, data, "%v", err)
		}
		return &protocol.AppReadResourceResult{Contents: []protocol.AppResourceContents{{
			URI: res.Ref.URI, MIMEType: res.MIMEType, Text: res.HTML, UI: wireUIMeta(res.UI),
		}}}, nil
	}
	if err := s.gateResourceRead(ctx, in, p.URI); err != nil {
		return nil, err
	}
	// Bounded while read, shared, a refusal remembered (hostfetch).
	res, err := s.apps.cache.SharedFetcher().Read(ctx, in.Server, sess, p.URI, apps.DefaultMaxBytes)
	if err != nil {
		return nil, protocol.NewError(protocol.CodeFailed, data, "app resource read: %v", err)
	}
	out := &protocol.AppReadResourceResult{Contents: []protocol.AppResourceContents{}}
	for _, c := range res.Contents {
		if c != nil {
			out.Contents = append(out.Contents, protocol.AppResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob})
		}
	}
	return out, nil
}

// gateResourceRead asks the permission gate about an app's read of a
// resource, as the model's resource tool does (tool "resources/read" of
// the server): the same rules and remembered answers apply.
func (s *service) gateResourceRead(ctx context.Context, in apps.Instance, uri string) error {
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	def := &mcp.Tool{Name: "resources/read", Description: "read a resource of the server", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"uri": map[string]any{"type": "string"}}}}
	t, err := newCheckOnlyTool(in.Server, def)
	if err != nil {
		return protocol.NewError(protocol.CodeInternalError, protocol.ErrorData{Server: in.Server}, "%v", err)
	}
	args, _ := json.Marshal(map[string]string{"uri": uri})
	ctx = context.WithValue(ctx, appKey{}, &protocol.AppConfirm{AppInstance: *wireInstance(in)})
	v, err := gate.Check(ctx, t, args)
	if err != nil {
		return protocol.NewError(protocol.CodeFailed, protocol.ErrorData{Server: in.Server, AppID: in.ID}, "permission: %v", err)
	}
	if !v.Allow {
		return protocol.NewError(protocol.CodeDenied, protocol.ErrorData{Server: in.Server, Tool: def.Name, AppID: in.ID, DecidedBy: v.By},
			"the app's read of resource %q of server %q: %s", termsafe.Line(uri), in.Server, v.Reason)
	}
	return nil
}

// AppCallTool calls a tool of the app's server for the app, behind the
// same gate as the model's calls; the confirm, when one is asked, names
// the app.
func (s *service) AppCallTool(ctx context.Context, p *protocol.AppCallToolParams) (*protocol.ToolCallResult, error) {
	in, err := s.instance(p.AppID)
	if err != nil {
		return nil, err
	}
	data := protocol.ErrorData{Server: in.Server, Tool: p.Tool, AppID: in.ID}
	if p.Server != "" && p.Server != in.Server {
		data.Server = p.Server
		return nil, protocol.NewError(protocol.CodeDenied, data,
			"the app of tool %q of server %q cannot call tool %q of server %q: an app reaches only its own server", in.Tool, in.Server, p.Tool, p.Server)
	}
	if err := s.readyServer(in); err != nil {
		return nil, err
	}
	if len(p.Arguments) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(p.Arguments, &obj); err != nil {
			data.Field = "arguments"
			return nil, protocol.NewError(protocol.CodeInvalidParams, data, "app.call_tool: params field \"arguments\" must be a JSON object")
		}
	}
	tools, err := s.m.Tools(in.Server)
	if err != nil {
		return nil, protocol.NewError(protocol.CodeNotReady, data, "%v", err)
	}
	var def *mcp.Tool
	for _, t := range tools {
		if t.Name == p.Tool {
			def = t
			break
		}
	}
	if def == nil {
		return nil, protocol.NewError(protocol.CodeFailed, data, "server %q has no tool %q (after include_tools/exclude_tools)", in.Server, termsafe.Line(p.Tool))
	}
	if ui := apps.Tool(def); !ui.Allows(apps.VisibleApp) {
		return nil, protocol.NewError(protocol.CodeDenied, data,
			"tool %q of server %q is not for apps: its _meta.ui.visibility is %q", p.Tool, in.Server, ui.Visibility)
	}
	s.mu.Lock()
	agent := s.agent
	s.mu.Unlock()
	ctx = context.WithValue(ctx, appKey{}, &protocol.AppConfirm{AppInstance: *wireInstance(in)})
	res, v, err := agent.CallTool(ctx, in.Server, p.Tool, p.Arguments)
	out, err := s.toolCallResult(ctx, &protocol.ToolCallParams{Server: in.Server, Tool: p.Tool, Arguments: p.Arguments}, res, v, err)
	var perr *protocol.Error
	if errors.As(err, &perr) {
		// The error names the app too, as every app.* error does.
		d := protocol.DataOf(err)
		d.AppID = in.ID
		perr.Data, _ = json.Marshal(d)
	}
	return out, err
}

// AppMessage adds the app's message to the conversation that opened it,
// as the user's, once the user said yes to it; it starts a run.
func (s *service) AppMessage(ctx context.Context, p *protocol.AppMessageParams) (*protocol.RunStartResult, error) {
	in, err := s.instance(p.AppID)
	if err != nil {
		return nil, err
	}
	data := protocol.ErrorData{Server: in.Server, Tool: in.Tool, AppID: in.ID}
	if p.Role != "" && p.Role != "user" {
		data.Field = "role"
		return nil, protocol.NewError(protocol.CodeInvalidParams, data, "app.message: params field \"role\" must be \"user\"")
	}
	var parts []string
	for _, c := range p.Content {
		if c.Type != "text" {
			data.Field = "content"
			return nil, protocol.NewError(protocol.CodeInvalidParams, data, "app.message: only text content is accepted, not %q", termsafe.Line(c.Type))
		}
		parts = append(parts, c.Text)
	}
	// What the user is shown is what the model gets: no hidden characters.
	text := termsafe.Sanitize(strings.Join(parts, "\n"), termsafe.Options{MultiLine: true, Max: -1})
	switch {
	case strings.TrimSpace(text) == "":
		data.Field = "content"
		return nil, protocol.NewError(protocol.CodeInvalidParams, data, "app.message: the message has no text")
	case len(text) > maxAppMessageBytes:
		data.Field = "content"
		return nil, protocol.NewError(protocol.CodeInvalidParams, data, "app.message: the message is %d bytes, over the bound of %d", len(text), maxAppMessageBytes)
	case s.opts.Provider == nil:
		return nil, protocol.Errorf(protocol.CodeNoModel, "no model is configured: an app's message needs one, as run.start does")
	}
	// The message continues the conversation that opened the app, once
	// that turn has ended; a conversation the runtime did not keep (its
	// run was cancelled) gives way to a new one.
	s.mu.Lock()
	_, running := s.runs[in.RunID]
	_, kept := s.convs[in.Conversation]
	s.mu.Unlock()
	if running {
		data.RunID = in.RunID
		return nil, protocol.NewError(protocol.CodeFailed, data, "the run %s that opened the app is still going: send the message when it has ended", in.RunID)
	}
	conv := in.Conversation
	if !kept {
		conv = ""
	}
	ok, err := s.appConsent(ctx, protocol.ConfirmKindAppMessage, in,
		"Send the app's message?",
		fmt.Sprintf("The app of tool %q (MCP server %q) wants to send a message to the model as yours.", in.Tool, in.Server),
		&protocol.AppConfirm{AppInstance: *wireInstance(in), Text: text})
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, protocol.NewError(protocol.CodeCancelled, data, "the user did not let the app of tool %q (server %q) send its message", in.Tool, in.Server)
	}
	return s.RunStart(ctx, &protocol.RunStartParams{Prompt: text, Conversation: conv})
}

// AppOpenLink opens a link for the app after the user's yes, as a login's
// page is opened: https, or http on loopback, with no hidden characters.
func (s *service) AppOpenLink(ctx context.Context, p *protocol.AppOpenLinkParams) (*protocol.AppOpenLinkResult, error) {
	in, err := s.instance(p.AppID)
	if err != nil {
		return nil, err
	}
	data := protocol.ErrorData{Server: in.Server, Tool: in.Tool, AppID: in.ID, Field: "url"}
	if termsafe.Line(p.URL) != p.URL {
		return nil, protocol.NewError(protocol.CodeInvalidParams, data, "app.open_link: the URL has control or invisible characters; refused")
	}
	if err := auth.CheckBrowserURL(p.URL); err != nil {
		return nil, protocol.NewError(protocol.CodeInvalidParams, data, "app.open_link: %v", err)
	}
	shown, err := displayForm(p.URL)
	if err != nil {
		return nil, protocol.NewError(protocol.CodeInvalidParams, data, "app.open_link: %v", err)
	}
	data.Field = ""
	ok, err := s.appConsent(ctx, protocol.ConfirmKindAppLink, in,
		"Open a link for the app?",
		fmt.Sprintf("The app of tool %q (MCP server %q) wants to open a page on %s (%s) in your browser.", in.Tool, in.Server, shown.DisplayHost, shown.DisplayURL),
		&protocol.AppConfirm{AppInstance: *wireInstance(in), URL: p.URL, DisplayForm: shown})
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, protocol.NewError(protocol.CodeCancelled, data, "the user did not let the app of tool %q (server %q) open %s", in.Tool, in.Server, shown.DisplayURL)
	}
	s.mu.Lock()
	useUI := s.caps.OpenURL
	s.mu.Unlock()
	if !useUI {
		if err := runtime.OpenBrowser(p.URL); err != nil {
			return nil, protocol.NewError(protocol.CodeFailed, data, "%v", err)
		}
		return &protocol.AppOpenLinkResult{Opened: true}, nil
	}
	res, err := s.ui.OpenURL(ctx, &protocol.OpenURLParams{URL: p.URL, DisplayForm: shown, Server: in.Server, Purpose: "app_link"})
	if err != nil {
		return nil, protocol.NewError(protocol.CodeFailed, data, "the UI did not open the link: %v", err)
	}
	return &protocol.AppOpenLinkResult{Opened: res.Opened}, nil
}

// AppClose forgets an app instance.
func (s *service) AppClose(ctx context.Context, p *protocol.AppCloseParams) (*protocol.Empty, error) {
	if !s.apps.reg.Close(p.AppID) {
		_, err := s.instance(p.AppID)
		return nil, err
	}
	return &protocol.Empty{}, nil
}

// appConsent asks the user a yes/no question on behalf of an app. A UI
// that cannot confirm cannot consent: the request is denied.
func (s *service) appConsent(ctx context.Context, kind string, in apps.Instance, title, msg string, app *protocol.AppConfirm) (bool, error) {
	s.mu.Lock()
	can := s.caps.Confirm
	s.mu.Unlock()
	if !can {
		return false, protocol.NewError(protocol.CodeDenied, protocol.ErrorData{Server: in.Server, Tool: in.Tool, AppID: in.ID, DecidedBy: "non-interactive policy"},
			"the UI cannot ask for the user's consent (it did not declare confirm), so the app's request is refused")
	}
	ctx, cancel := context.WithTimeout(ctx, appConsentTimeout)
	defer cancel()
	cctx, done := confirmContext(ctx)
	defer done()
	res, err := s.ui.Confirm(cctx, &protocol.ConfirmParams{
		Kind: kind, Title: title, Message: msg,
		Options:   []string{protocol.AnswerYes, protocol.AnswerNo},
		App:       app,
		TimeoutMS: appConsentTimeout.Milliseconds(),
	})
	if err != nil {
		var perr *protocol.Error
		if errors.As(err, &perr) || ctx.Err() != nil {
			return false, nil // no answer is a no
		}
		return false, protocol.NewError(protocol.CodeFailed, protocol.ErrorData{AppID: in.ID}, "ask the UI: %v", err)
	}
	return res.Answer == protocol.AnswerYes, nil
}
