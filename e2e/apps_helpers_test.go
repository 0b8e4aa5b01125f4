package e2e_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// appsServerHTML is the app the Go app server serves as ui://hostile/ok.html.
const appsServerHTML = "<!DOCTYPE html><html><body><p>hostile app</p></body></html>"

// startAppsServer runs a go-sdk Streamable HTTP server with MCP Apps the
// spec allows and ones it does not: show (an app with CSP metadata),
// refresh (app-only), model_only, plain (a UI resource served as
// text/html) and big (a 3 MiB UI resource). Every tool answers with its
// name. ext returns the io.modelcontextprotocol/ui settings the last
// client declared in its handshake (nil when it declared none).
func startAppsServer(t *testing.T) (url string, ext func() any) {
	t.Helper()
	var mu sync.Mutex
	var declared any
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile-apps", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			mu.Lock()
			defer mu.Unlock()
			declared = nil
			if caps := req.Session.InitializeParams().Capabilities; caps != nil {
				declared = caps.Extensions[protocol.AppExtensionID]
			}
		},
	})
	ui := func(uri string, vis ...string) mcp.Meta {
		m := map[string]any{}
		if uri != "" {
			m["resourceUri"] = uri
		}
		if vis != nil {
			v := make([]any, len(vis))
			for i, s := range vis {
				v[i] = s
			}
			m["visibility"] = v
		}
		return mcp.Meta{"ui": m}
	}
	tools := []*mcp.Tool{
		{Name: "show", Description: "shows the app", Meta: ui("ui://hostile/ok.html")},
		{Name: "refresh", Description: "the app's own refresh button", Meta: ui("ui://hostile/ok.html", "app")},
		{Name: "model_only", Description: "for the model alone", Meta: ui("", "model")},
		{Name: "plain", Description: "an app served with the wrong MIME type", Meta: ui("ui://hostile/plain.html")},
		{Name: "big", Description: "an app over the size bound", Meta: ui("ui://hostile/big.html")},
		{Name: "listed", Description: "an app whose metadata is on its resources/list entry", Meta: ui("ui://hostile/listed.html")},
	}
	for _, tl := range tools {
		name := tl.Name
		mcp.AddTool(srv, tl, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called " + name}}}, nil, nil
		})
	}
	resources := map[string]*mcp.ResourceContents{
		"ui://hostile/ok.html": {MIMEType: protocol.AppMIMEType, Text: appsServerHTML, Meta: mcp.Meta{"ui": map[string]any{
			"csp":         map[string]any{"connectDomains": []any{"https://api.example.com"}, "resourceDomains": []any{"https://cdn.example.com"}},
			"permissions": map[string]any{"clipboardWrite": map[string]any{}},
			"domain":      "hostile.example", "prefersBorder": false,
		}}},
		"ui://hostile/plain.html":  {MIMEType: "text/html", Text: "<p>not an app</p>"},
		"ui://hostile/big.html":    {MIMEType: protocol.AppMIMEType, Text: "<!DOCTYPE html>" + strings.Repeat("x", 3<<20)},
		"ui://hostile/data.json":   {MIMEType: "application/json", Text: `{"n":1}`},
		"ui://hostile/listed.html": {MIMEType: protocol.AppMIMEType, Text: appsServerHTML},
	}
	// Metadata on a resources/list entry (as the SDK's registerAppResource
	// puts it) rather than on the content.
	listed := map[string]mcp.Meta{"ui://hostile/listed.html": {"ui": map[string]any{"csp": map[string]any{"connectDomains": []any{"https://listed.example.com"}}}}}
	for uri, c := range resources {
		c.URI = uri
		srv.AddResource(&mcp.Resource{URI: uri, Name: uri, MIMEType: c.MIMEType, Meta: listed[uri]}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
		})
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL, func() any {
		mu.Lock()
		defer mu.Unlock()
		return declared
	}
}

// appEvent returns the first event of run id of type typ, with its call.
func appEvent(t *testing.T, evs []protocol.AgentEventParams, typ string) *protocol.AgentEventParams {
	t.Helper()
	for i := range evs {
		if evs[i].Type == typ && evs[i].Call != nil {
			return &evs[i]
		}
	}
	t.Fatalf("no %s event with a call in %+v", typ, evs)
	return nil
}

// wantCode fails unless err is a protocol error with code and a message
// holding every one of says.
func wantCode(t *testing.T, what string, err error, code int64, says ...string) {
	t.Helper()
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != code {
		t.Errorf("%s: err = %v, want code %d", what, err, code)
		return
	}
	for _, s := range says {
		if !strings.Contains(perr.Message, s) {
			t.Errorf("%s: message %q does not say %q", what, perr.Message, s)
		}
	}
}

// confirmsSeen returns the confirms the UI was asked so far.
func (u *testUI) confirmsSeen() []protocol.ConfirmParams {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]protocol.ConfirmParams(nil), u.confirms...)
}
