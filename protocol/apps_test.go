package protocol_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
)

// appServer answers app.call_tool; the other app methods are not needed.
type appServer struct {
	fakeServer
	protocol.AppServer
}

func (s *appServer) AppCallTool(_ context.Context, p *protocol.AppCallToolParams) (*protocol.ToolCallResult, error) {
	if p.AppID != "app1" {
		return nil, protocol.NewError(protocol.CodeUnknownApp, protocol.ErrorData{AppID: p.AppID}, "no app instance %q", p.AppID)
	}
	return &protocol.ToolCallResult{DecidedBy: "user", App: &protocol.AppInstance{ID: p.AppID, Server: "s", Tool: p.Tool}}, nil
}

// The app.* methods reach a Server that implements AppServer, and are
// unknown methods for one that does not.
func TestAppMethodsDispatch(t *testing.T) {
	ctx := context.Background()
	ui, _ := pair(t, nil, protocol.ServerHandler(&appServer{}), protocol.ConnOptions{})
	apps := protocol.NewAppCaller(ui)
	got, err := apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: "app1", Tool: "refresh"})
	if err != nil || got.App == nil || got.App.Tool != "refresh" {
		t.Fatalf("AppCallTool = %+v, %v", got, err)
	}
	_, err = apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: "nope", Tool: "refresh"})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownApp || protocol.DataOf(err).Kind != protocol.KindUnknownApp || protocol.DataOf(err).AppID != "nope" {
		t.Errorf("unknown app: err = %v, data %+v", err, protocol.DataOf(err))
	}
	_, err = apps.AppCallTool(ctx, &protocol.AppCallToolParams{Tool: "refresh"})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidParams || protocol.DataOf(err).Field != "app_id" {
		t.Errorf("missing app_id: err = %v", err)
	}
	_, err = apps.AppOpenLink(ctx, &protocol.AppOpenLinkParams{AppID: "app1"})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidParams || protocol.DataOf(err).Field != "url" {
		t.Errorf("missing url: err = %v", err)
	}

	plain, _ := pair(t, nil, protocol.ServerHandler(&fakeServer{}), protocol.ConnOptions{})
	_, err = protocol.NewAppCaller(plain).AppCallTool(ctx, &protocol.AppCallToolParams{AppID: "app1", Tool: "refresh"})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeMethodNotFound {
		t.Errorf("server without apps: err = %v", err)
	}
}

// The app.* names and wire shapes are what web UIs code against: a change
// here breaks them, so it must be deliberate.
func TestAppWireShapes(t *testing.T) {
	names := []string{protocol.MethodAppReadResource, protocol.MethodAppCallTool, protocol.MethodAppMessage,
		protocol.MethodAppOpenLink, protocol.MethodAppClose, protocol.ConfirmKindAppMessage, protocol.ConfirmKindAppLink}
	if got := strings.Join(names, " "); got != "app.read_resource app.call_tool app.message app.open_link app.close app_message app_open_link" {
		t.Errorf("names = %s", got)
	}
	no := false
	for _, c := range []struct {
		v    any
		want string
	}{
		{protocol.ToolInfo{PublicName: "p", Server: "s", Tool: "t", App: &protocol.ToolApp{ResourceURI: "ui://a", Visibility: []string{"app"}}},
			`{"public_name":"p","server":"s","tool":"t","app":{"resource_uri":"ui://a","visibility":["app"]}}`},
		{protocol.AppInstance{ID: "app1", Server: "s", Tool: "t", ResourceURI: "ui://a", RunID: "r1", CallID: "c1", Conversation: "c"},
			`{"id":"app1","server":"s","tool":"t","resource_uri":"ui://a","run_id":"r1","call_id":"c1","conversation":"c"}`},
		{protocol.AppConfirm{AppInstance: protocol.AppInstance{ID: "app1", Server: "s", Tool: "t", ResourceURI: "ui://a"}, Text: "hi", URL: "https://x"},
			`{"id":"app1","server":"s","tool":"t","resource_uri":"ui://a","text":"hi","url":"https://x"}`},
		{protocol.AppResourceContents{URI: "ui://a", MIMEType: protocol.AppMIMEType, Text: "<p>", UI: &protocol.AppUIMeta{
			CSP:         &protocol.AppCSP{ConnectDomains: []string{"https://c"}, ResourceDomains: []string{"https://r"}, FrameDomains: []string{"https://f"}, BaseURIDomains: []string{"https://b"}},
			Permissions: &protocol.AppPermissions{Camera: true, Microphone: true, Geolocation: true, ClipboardWrite: true},
			Domain:      "d", PrefersBorder: &no}},
			`{"uri":"ui://a","mime_type":"text/html;profile=mcp-app","text":"\u003cp\u003e","ui":{"csp":{"connect_domains":["https://c"],"resource_domains":["https://r"],"frame_domains":["https://f"],"base_uri_domains":["https://b"]},"permissions":{"camera":true,"microphone":true,"geolocation":true,"clipboard_write":true},"domain":"d","prefers_border":false}}`},
		{protocol.AppCallToolParams{AppID: "app1", Server: "s", Tool: "t", Arguments: json.RawMessage(`{}`)},
			`{"app_id":"app1","server":"s","tool":"t","arguments":{}}`},
		{protocol.AppMessageParams{AppID: "app1", Role: "user", Content: []protocol.Content{{Type: "text", Text: "hi"}}},
			`{"app_id":"app1","role":"user","content":[{"type":"text","text":"hi"}]}`},
		{protocol.AppOpenLinkParams{AppID: "app1", URL: "https://x"}, `{"app_id":"app1","url":"https://x"}`},
	} {
		got, err := json.Marshal(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("%T:\n got %s\nwant %s", c.v, got, c.want)
		}
	}
}
