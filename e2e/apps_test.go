package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// appsHost runs host serve with the Go app server ("hostile") and, with
// withBasic, the real vanillajs app server over stdio ("basic"), a script
// that calls get-time and then answers, and a UI that can confirm and open
// URLs.
func appsHost(t *testing.T, withBasic bool) (*servedHost, protocol.AppServer, context.Context) {
	t.Helper()
	hostileURL, declared := startAppsServer(t)
	servers := map[string]any{"hostile": map[string]any{"transport": "http", "url": hostileURL}}
	if withBasic {
		basic := testenv.NodeBin(t, "mcp-server-basic-vanillajs")
		servers["basic"] = map[string]any{"transport": "stdio", "command": basic[0], "args": append(basic[1:], "--stdio")}
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": servers}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"id": "call_time", "name": adapter.PublicName("basic", "get-time"), "args": map[string]any{}}}},
		{"text": "The app shows the time."},
		{"text": "Thanks for the message from the app."},
	})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--script", script, "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, 2*time.Minute)
	h.ui.mu.Lock()
	h.ui.openURL = func(string) bool { return true }
	h.ui.mu.Unlock()
	init, err := h.rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-apps"},
		Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !init.Capabilities.Apps {
		t.Errorf("initialize: capabilities.apps is false")
	}
	waitFor(t, 60*time.Second, "the servers ready", func() bool {
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		ready := 0
		for _, s := range l.Servers {
			if s.State == protocol.StateReady {
				ready++
			}
		}
		return ready == len(servers)
	})
	// The handshake declared the extension, as the spec says a host does.
	if ext, ok := declared().(map[string]any); !ok || !reflect.DeepEqual(ext["mimeTypes"], []any{protocol.AppMIMEType}) {
		t.Errorf("the server saw extension settings %#v, want mimeTypes [%s]", declared(), protocol.AppMIMEType)
	}
	return h, protocol.NewAppCaller(h.conn), ctx
}

// MCP Apps over the protocol, with the real example app server from npm:
// the app shows in tools.list, a run's call of its tool carries the app
// instance with the input and the result, the UI reads the app's HTML, and
// the app's own calls are gated like the model's and kept to its server.
func TestMCPAppsBasic(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	h, apps, ctx := appsHost(t, true)

	tl, err := h.rt.ToolsList(ctx, &protocol.ToolsListParams{Server: "basic"})
	if err != nil || len(tl.Tools) != 1 || tl.Tools[0].Tool != "get-time" {
		t.Fatalf("tools.list basic = %+v, %v", tl, err)
	}
	if a := tl.Tools[0].App; a == nil || a.ResourceURI != "ui://get-time/mcp-app.html" || !slices.Equal(a.Visibility, []string{"model", "app"}) {
		t.Errorf("tools.list: get-time app = %+v", a)
	}

	h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	run, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "What time is it?"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "run r1 done", func() bool { _, ok := h.ui.finalRun(run.RunID); return ok })
	evs := h.ui.runEvents(run.RunID)
	call := appEvent(t, evs, protocol.EventToolCall)
	app := call.Call.App
	if app == nil || app.ID == "" || app.Server != "basic" || app.Tool != "get-time" || app.ResourceURI != "ui://get-time/mcp-app.html" ||
		app.RunID != run.RunID || app.CallID != "call_time" || app.Conversation != run.Conversation {
		t.Fatalf("tool_call event: app = %+v", app)
	}
	if string(call.Call.Arguments) != "{}" {
		t.Errorf("tool_call event: arguments %s, want the input {}", call.Call.Arguments)
	}
	result := appEvent(t, evs, protocol.EventToolResult)
	if result.Call.App == nil || result.Call.App.ID != app.ID || result.Result == nil || len(result.Result.Content) == 0 {
		t.Fatalf("tool_result event: %+v", result)
	}
	var structured struct {
		Time string `json:"time"`
	}
	if err := json.Unmarshal(result.Result.Structured, &structured); err != nil || !strings.HasPrefix(structured.Time, "20") {
		t.Errorf("tool_result: structured %s, want the server's time", result.Result.Structured)
	}

	t.Run("app.read_resource returns the app's HTML", func(t *testing.T) {
		res, err := apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: app.ID})
		if err != nil {
			t.Fatal(err)
		}
		want, rerr := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "e2e", "node", "node_modules", "@modelcontextprotocol", "server-basic-vanillajs", "dist", "mcp-app.html"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		if len(res.Contents) != 1 || res.Contents[0].MIMEType != protocol.AppMIMEType || res.Contents[0].URI != app.ResourceURI || res.Contents[0].Text != string(want) {
			t.Errorf("contents: %d, mime %q, uri %q, %d bytes of HTML (want %d)", len(res.Contents), res.Contents[0].MIMEType, res.Contents[0].URI, len(res.Contents[0].Text), len(want))
		}
	})

	t.Run("app.call_tool is confirmed like a model call", func(t *testing.T) {
		before := len(h.ui.confirmsSeen())
		h.ui.setAnswer(answerWith(protocol.AnswerDeny))
		_, err := apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: app.ID, Tool: "get-time"})
		wantCode(t, "denied", err, protocol.CodeDenied, "get-time")
		if d := protocol.DataOf(err); d.AppID != app.ID || d.DecidedBy != "user" || d.Server != "basic" {
			t.Errorf("denied: data %+v", d)
		}
		asked := h.ui.confirmsSeen()[before:]
		if len(asked) != 1 || asked[0].Kind != protocol.ConfirmKindToolCall || asked[0].Tool == nil || asked[0].Tool.Server != "basic" ||
			asked[0].App == nil || asked[0].App.ID != app.ID || asked[0].App.RunID != run.RunID || asked[0].App.CallID != "call_time" ||
			!strings.Contains(asked[0].Message, `The app of tool "get-time"`) {
			t.Fatalf("confirm = %+v", asked)
		}
		h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
		res, err := apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: app.ID, Tool: "get-time", Arguments: json.RawMessage(`{}`)})
		if err != nil || res.DecidedBy != "user" || len(res.Result.Structured) == 0 {
			t.Fatalf("allowed: %+v, %v", res, err)
		}
	})

	t.Run("an app cannot reach another server", func(t *testing.T) {
		before := len(h.ui.confirmsSeen())
		_, err := apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: app.ID, Server: "hostile", Tool: "show"})
		wantCode(t, "other server", err, protocol.CodeDenied, "only its own server")
		_, err = apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: app.ID, Tool: "show"})
		wantCode(t, "other server's tool by name", err, protocol.CodeFailed, `server "basic" has no tool "show"`)
		if n := len(h.ui.confirmsSeen()) - before; n != 0 {
			t.Errorf("%d confirms asked for calls that must be refused outright", n)
		}
	})

	t.Run("app.message adds a user message after consent", func(t *testing.T) {
		h.ui.setAnswer(answerWith(protocol.AnswerNo))
		_, err := apps.AppMessage(ctx, &protocol.AppMessageParams{AppID: app.ID, Role: "user", Content: []protocol.Content{{Type: "text", Text: "Tell me more"}}})
		wantCode(t, "declined", err, protocol.CodeCancelled, "did not let the app")
		h.ui.setAnswer(answerWith(protocol.AnswerYes))
		started, err := apps.AppMessage(ctx, &protocol.AppMessageParams{AppID: app.ID, Role: "user", Content: []protocol.Content{{Type: "text", Text: "Tell me more"}}})
		if err != nil || started.Conversation != run.Conversation {
			t.Fatalf("app.message = %+v, %v (want a run in conversation %s)", started, err, run.Conversation)
		}
		waitFor(t, 30*time.Second, "the message's run", func() bool { _, ok := h.ui.finalRun(started.RunID); return ok })
		if st, _ := h.ui.finalRun(started.RunID); st.Status != protocol.RunCompleted || st.Text != "Thanks for the message from the app." {
			t.Errorf("the message's run: %+v", st)
		}
		asked := h.ui.confirmsSeen()
		last := asked[len(asked)-1]
		if last.Kind != protocol.ConfirmKindAppMessage || last.App == nil || last.App.Text != "Tell me more" || last.App.ID != app.ID {
			t.Errorf("consent asked as %+v", last)
		}
		_, err = apps.AppMessage(ctx, &protocol.AppMessageParams{AppID: app.ID, Content: []protocol.Content{{Type: "image", Data: []byte{1}}}})
		wantCode(t, "image", err, protocol.CodeInvalidParams, "only text")
	})

	t.Run("app.open_link asks, then opens through the UI", func(t *testing.T) {
		h.ui.setAnswer(answerWith(protocol.AnswerYes))
		res, err := apps.AppOpenLink(ctx, &protocol.AppOpenLinkParams{AppID: app.ID, URL: "https://example.com/docs"})
		if err != nil || !res.Opened {
			t.Fatalf("open_link = %+v, %v", res, err)
		}
		h.ui.mu.Lock()
		urls := append([]protocol.OpenURLParams(nil), h.ui.urls...)
		h.ui.mu.Unlock()
		if len(urls) != 1 || urls[0].URL != "https://example.com/docs" || urls[0].Purpose != "app_link" || urls[0].Server != "basic" {
			t.Errorf("ui.open_url.request: %+v", urls)
		}
		before := len(h.ui.confirmsSeen())
		for _, bad := range []string{"javascript:alert(1)", "http://example.com/", "file:///etc/passwd", "https://example.com/\u202etxt"} {
			_, err := apps.AppOpenLink(ctx, &protocol.AppOpenLinkParams{AppID: app.ID, URL: bad})
			wantCode(t, bad, err, protocol.CodeInvalidParams)
		}
		if n := len(h.ui.confirmsSeen()) - before; n != 0 {
			t.Errorf("%d confirms asked for links that are never opened", n)
		}
		h.ui.setAnswer(answerWith(protocol.AnswerNo))
		_, err = apps.AppOpenLink(ctx, &protocol.AppOpenLinkParams{AppID: app.ID, URL: "http://127.0.0.1:9/x"})
		wantCode(t, "declined link", err, protocol.CodeCancelled)
	})

	t.Run("app.close forgets the instance", func(t *testing.T) {
		if _, err := apps.AppClose(ctx, &protocol.AppCloseParams{AppID: app.ID}); err != nil {
			t.Fatal(err)
		}
		_, err := apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: app.ID})
		wantCode(t, "closed", err, protocol.CodeUnknownApp)
	})
}

// The Go app server's apps: an app-only tool is absent from the model's
// catalog but callable by its app, a model-only tool is not callable by
// the app, the app's metadata reaches the UI, and UI resources of the
// wrong MIME type or over the size bound are refused with an error naming
// server, tool and URI.
func TestMCPAppsHostile(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	h, apps, ctx := appsHost(t, false)

	tl, err := h.rt.ToolsList(ctx, &protocol.ToolsListParams{Server: "hostile"})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]*protocol.ToolApp{}
	for _, tool := range tl.Tools {
		listed[tool.Tool] = tool.App
	}
	if _, ok := listed["refresh"]; ok {
		t.Errorf("tools.list offers the app-only tool refresh to the model: %v", listed)
	}
	if a, ok := listed["show"]; !ok || a == nil || a.ResourceURI != "ui://hostile/ok.html" {
		t.Errorf("tools.list: show = %+v", a)
	}
	if a, ok := listed["model_only"]; !ok || a != nil {
		t.Errorf("tools.list: model_only = %+v, %v (listed, without an app)", a, ok)
	}

	h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	open := func(tool string) *protocol.AppInstance {
		t.Helper()
		res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "hostile", Tool: tool})
		if err != nil || res.App == nil || res.App.Server != "hostile" || res.App.Tool != tool || res.App.RunID != "" {
			t.Fatalf("tool.call %s = %+v, %v", tool, res, err)
		}
		return res.App
	}
	show := open("show")

	t.Run("metadata", func(t *testing.T) {
		res, err := apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: show.ID})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Contents[0]
		if c.Text != appsServerHTML || c.UI == nil || c.UI.CSP == nil || !slices.Equal(c.UI.CSP.ConnectDomains, []string{"https://api.example.com"}) ||
			!slices.Equal(c.UI.CSP.ResourceDomains, []string{"https://cdn.example.com"}) || c.UI.Permissions == nil || !c.UI.Permissions.ClipboardWrite ||
			c.UI.Permissions.Camera || c.UI.Domain != "hostile.example" || c.UI.PrefersBorder == nil || *c.UI.PrefersBorder {
			t.Errorf("resource = %+v, ui %+v", c, c.UI)
		}
		listed := open("listed")
		res, err = apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: listed.ID})
		if err != nil || res.Contents[0].UI == nil || res.Contents[0].UI.CSP == nil ||
			!slices.Equal(res.Contents[0].UI.CSP.ConnectDomains, []string{"https://listed.example.com"}) {
			t.Errorf("metadata from the resources/list entry: %+v, %v", res, err)
		}
	})

	t.Run("visibility", func(t *testing.T) {
		res, err := apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: show.ID, Tool: "refresh"})
		if err != nil || res.Result.Content[0].Text != "called refresh" {
			t.Errorf("the app's call of its app-only tool: %+v, %v", res, err)
		}
		before := len(h.ui.confirmsSeen())
		_, err = apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: show.ID, Tool: "model_only"})
		wantCode(t, "model-only tool", err, protocol.CodeDenied, `tool "model_only" of server "hostile" is not for apps`)
		if n := len(h.ui.confirmsSeen()) - before; n != 0 {
			t.Errorf("%d confirms asked for a call refused by visibility", n)
		}
	})

	t.Run("other resources are gated", func(t *testing.T) {
		h.ui.setAnswer(answerWith(protocol.AnswerDeny))
		_, err := apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: show.ID, URI: "ui://hostile/data.json"})
		wantCode(t, "denied read", err, protocol.CodeDenied, "ui://hostile/data.json")
		asked := h.ui.confirmsSeen()
		if last := asked[len(asked)-1]; last.Tool == nil || last.Tool.Tool != "resources/read" || last.App == nil || last.App.ID != show.ID {
			t.Errorf("confirm = %+v", last)
		}
		h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
		res, err := apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: show.ID, URI: "ui://hostile/data.json"})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != `{"n":1}` || res.Contents[0].MIMEType != "application/json" {
			t.Errorf("allowed read: %+v, %v", res, err)
		}
	})

	t.Run("wrong MIME and oversized resources are refused", func(t *testing.T) {
		plain := open("plain")
		_, err := apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: plain.ID})
		wantCode(t, "wrong MIME", err, protocol.CodeFailed, `server "hostile" tool "plain": UI resource "ui://hostile/plain.html": MIME type "text/html", want "text/html;profile=mcp-app"; refused`)
		if d := protocol.DataOf(err); d.Server != "hostile" || d.Tool != "plain" || d.URI != "ui://hostile/plain.html" || d.AppID != plain.ID {
			t.Errorf("wrong MIME: data %+v", d)
		}
		big := open("big")
		_, err = apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: big.ID})
		wantCode(t, "oversized", err, protocol.CodeFailed, `server "hostile" tool "big": UI resource "ui://hostile/big.html"`, "over the bound of 2097152 bytes; refused")
		waitFor(t, 10*time.Second, "warnings about both refused apps", func() bool {
			h.ui.mu.Lock()
			defer h.ui.mu.Unlock()
			n := 0
			for _, l := range h.ui.logs {
				if l.Level == "warn" && l.Server == "hostile" && strings.Contains(l.Message, "MCP App not shown") {
					n++
				}
			}
			return n >= 2
		})
	})
}

// The model never gets an app-only tool: a script that names it is told
// the tool does not exist and the server is never called. A UI that cannot
// confirm gets the rules-only policy for an app's calls, and cannot
// consent to an app's message or link.
func TestMCPAppsWithoutConfirm(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"hostile": map[string]any{"transport": "http", "url": firstOf(startAppsServer(t))},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"id": "c1", "name": adapter.PublicName("hostile", "refresh"), "args": map[string]any{}}}},
		{"text": "no such tool"},
	})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--script", script, "--allow", "hostile/show", "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-apps-noconfirm"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "hostile ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "hostile"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	apps := protocol.NewAppCaller(h.conn)

	run, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "refresh"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the run", func() bool { _, ok := h.ui.finalRun(run.RunID); return ok })
	res := appEvent(t, h.ui.runEvents(run.RunID), protocol.EventToolResult)
	if !res.Call.Unknown || res.Result == nil || !res.Result.IsError || strings.Contains(res.Result.Content[0].Text, "called refresh") {
		t.Errorf("the model's call of the app-only tool: %+v, result %+v", res.Call, res.Result)
	}

	call, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "hostile", Tool: "show"})
	if err != nil || call.App == nil || call.DecidedBy != "allow rule" {
		t.Fatalf("tool.call show (allowed by rule) = %+v, %v", call, err)
	}
	_, err = apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: call.App.ID, Tool: "refresh"})
	wantCode(t, "app call without a rule", err, protocol.CodeDenied)
	if d := protocol.DataOf(err); d.DecidedBy != "non-interactive policy" {
		t.Errorf("decided_by = %q, want non-interactive policy", d.DecidedBy)
	}
	if res, err := apps.AppCallTool(ctx, &protocol.AppCallToolParams{AppID: call.App.ID, Tool: "show"}); err != nil || res.DecidedBy != "allow rule" {
		t.Errorf("app call with an allow rule = %+v, %v", res, err)
	}
	_, err = apps.AppMessage(ctx, &protocol.AppMessageParams{AppID: call.App.ID, Content: []protocol.Content{{Type: "text", Text: "hi"}}})
	wantCode(t, "message without consent", err, protocol.CodeDenied, "cannot ask for the user's consent")
	_, err = apps.AppOpenLink(ctx, &protocol.AppOpenLinkParams{AppID: call.App.ID, URL: "https://example.com/"})
	wantCode(t, "link without consent", err, protocol.CodeDenied, "cannot ask for the user's consent")
	if n := len(h.ui.confirmsSeen()); n != 0 {
		t.Errorf("%d confirms sent to a UI that did not declare confirm", n)
	}
}

// A second example app server from npm (preact): its page reaches the UI
// whole, checked, through a direct tool.call's app instance.
func TestMCPAppsPreact(t *testing.T) {
	preact := testenv.NodeBin(t, "mcp-server-basic-preact")
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"preact": map[string]any{"transport": "stdio", "command": preact[0], "args": append(preact[1:], "--stdio")},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--allow", "preact/get-time", "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-apps-preact"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "preact ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "preact"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	call, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "preact", Tool: "get-time"})
	if err != nil || call.App == nil || call.App.ResourceURI != "ui://get-time/mcp-app.html" || len(call.Result.Content) == 0 {
		t.Fatalf("tool.call get-time = %+v, %v", call, err)
	}
	res, err := protocol.NewAppCaller(h.conn).AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: call.App.ID})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "e2e", "node", "node_modules", "@modelcontextprotocol", "server-basic-preact", "dist", "mcp-app.html"))
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Contents[0]; c.MIMEType != protocol.AppMIMEType || c.Text != string(want) {
		t.Errorf("preact page: mime %q, %d bytes, want %d", c.MIMEType, len(c.Text), len(want))
	}
}

// firstOf returns the first of two results.
func firstOf[T, U any](v T, _ U) T { return v }
