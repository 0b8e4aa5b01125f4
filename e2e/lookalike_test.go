package e2e_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// lookalikePage is a page on "аpple.com" written with a Cyrillic "а"
// (U+0430): in most fonts the same as apple.com. Its ASCII (IDNA) form is
// xn--pple-43d.com. Nothing ever fetches it: the UI of these tests records
// what it is asked to show and open, and opens nothing.
const (
	lookalikePage  = "https://\u0430pple.com/signin?next=%2Faccount"
	lookalikeASCII = "xn--pple-43d.com"
)

// noLookalike fails when text shows the look-alike host under its false
// name (the Unicode form, which reads as apple.com) instead of its ASCII
// form.
func noLookalike(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, "\u0430pple") || !strings.Contains(text, lookalikeASCII) {
		t.Errorf("%s shows %q: want the host as %s, never as \u0430pple.com", what, text, lookalikeASCII)
	}
}

// A server's URL-mode elicitation that points at a look-alike host: the UI
// is told the host in its ASCII form in the confirm (its message and its
// display fields) and in ui.open_url.request, beside the raw URL it opens.
// A URL whose userinfo names another host is declined without asking.
func TestLookalikeHostInElicitation(t *testing.T) {
	url := startPageServer(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"pages": map[string]any{"transport": "http", "url": url},
	}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--allow", "pages/open_page", "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, time.Minute)
	var mu sync.Mutex
	var asked []protocol.ConfirmParams
	h.ui.setAnswer(func(_ context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, *p)
		return &protocol.ConfirmResult{Answer: protocol.AnswerYes}, nil
	})
	h.ui.mu.Lock()
	h.ui.openURL = func(string) bool { return true } // records, opens nothing
	h.ui.mu.Unlock()
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-lookalike"},
		Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true},
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "pages ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "pages"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	call := func(page string) string {
		t.Helper()
		raw, _ := json.Marshal(pageArgs{URL: page, ID: "el-1"})
		res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "pages", Tool: "open_page", Arguments: raw})
		if err != nil || len(res.Result.Content) == 0 {
			t.Fatalf("tool.call %s: %+v, %v", page, res, err)
		}
		return res.Result.Content[0].Text
	}

	if got := call(lookalikePage); got != "accept" {
		t.Fatalf("the server heard %q, want accept", got)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0].Elicitation == nil {
		t.Fatalf("confirms: %+v, want one elicitation confirm", asked)
	}
	c := asked[0]
	mu.Unlock()
	t.Logf("ui.confirm.request: title %q, message %q, elicitation %+v", c.Title, c.Message, *c.Elicitation)
	noLookalike(t, "the confirm's message", c.Message)
	if c.Elicitation.URL != lookalikePage {
		t.Errorf("elicitation.url = %q, want the raw URL %q to open", c.Elicitation.URL, lookalikePage)
	}
	if c.Elicitation.DisplayHost != lookalikeASCII || c.Elicitation.DisplayURL != "https://"+lookalikeASCII+"/signin?next=%2Faccount" {
		t.Errorf("elicitation display_host %q, display_url %q: want %s and its URL", c.Elicitation.DisplayHost, c.Elicitation.DisplayURL, lookalikeASCII)
	}
	h.ui.mu.Lock()
	urls := append([]protocol.OpenURLParams(nil), h.ui.urls...)
	h.ui.mu.Unlock()
	if len(urls) != 1 {
		t.Fatalf("ui.open_url.request: %+v, want one", urls)
	}
	t.Logf("ui.open_url.request: %+v", urls[0])
	if urls[0].URL != lookalikePage || urls[0].DisplayHost != lookalikeASCII {
		t.Errorf("ui.open_url.request url %q display_host %q: want the raw URL and %s", urls[0].URL, urls[0].DisplayHost, lookalikeASCII)
	}
	noLookalike(t, "ui.open_url.request's display_url", urls[0].DisplayURL)

	// userinfo: the person reads good.example, the browser goes to
	// 127.0.0.1. Declined, no one asked, nothing opened.
	if got := call("https://accounts.good.example@127.0.0.1:9/"); got != "decline" {
		t.Errorf("a URL with userinfo: the server heard %q, want decline", got)
	}
	mu.Lock()
	n := len(asked)
	mu.Unlock()
	if n != 1 {
		t.Errorf("%d confirms after a URL with userinfo, want still 1", n)
	}
}

// An MCP App's link to a look-alike host: the consent and
// ui.open_url.request show the host in its ASCII form; a link with
// userinfo is refused before anyone is asked.
func TestLookalikeHostInAppLink(t *testing.T) {
	h, apps, ctx := appsHost(t, false)
	h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
	res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "hostile", Tool: "show"})
	if err != nil || res.App == nil {
		t.Fatalf("tool.call show = %+v, %v", res, err)
	}
	h.ui.setAnswer(answerWith(protocol.AnswerYes))
	before := len(h.ui.confirmsSeen())
	opened, err := apps.AppOpenLink(ctx, &protocol.AppOpenLinkParams{AppID: res.App.ID, URL: lookalikePage})
	if err != nil || !opened.Opened {
		t.Fatalf("open_link = %+v, %v", opened, err)
	}
	seen := h.ui.confirmsSeen()
	if len(seen) != before+1 || seen[len(seen)-1].App == nil {
		t.Fatalf("confirms: %+v, want one app_open_link confirm", seen[before:])
	}
	c := seen[len(seen)-1]
	t.Logf("ui.confirm.request: title %q, message %q, app url %q display_url %q display_host %q", c.Title, c.Message, c.App.URL, c.App.DisplayURL, c.App.DisplayHost)
	noLookalike(t, "the confirm's message", c.Message)
	if c.App.URL != lookalikePage || c.App.DisplayHost != lookalikeASCII {
		t.Errorf("app url %q display_host %q: want the raw URL and %s", c.App.URL, c.App.DisplayHost, lookalikeASCII)
	}
	noLookalike(t, "the confirm's app.display_url", c.App.DisplayURL)
	h.ui.mu.Lock()
	urls := append([]protocol.OpenURLParams(nil), h.ui.urls...)
	h.ui.mu.Unlock()
	if len(urls) != 1 || urls[0].URL != lookalikePage || urls[0].DisplayHost != lookalikeASCII {
		t.Errorf("ui.open_url.request: %+v, want one for the raw URL with display_host %s", urls, lookalikeASCII)
	}

	before = len(h.ui.confirmsSeen())
	_, err = apps.AppOpenLink(ctx, &protocol.AppOpenLinkParams{AppID: res.App.ID, URL: "https://apple.com@127.0.0.1:9/"})
	wantCode(t, "a link with userinfo", err, protocol.CodeInvalidParams, "user name or password")
	if n := len(h.ui.confirmsSeen()) - before; n != 0 {
		t.Errorf("%d confirms asked for a link with userinfo", n)
	}
}

// The CLI shows a configured server's URL with its host in ASCII form: `mcp
// add` and `mcp list` (neither connects, so the look-alike host is never
// reached) print xn--pple-43d.com, and a URL whose userinfo names another
// host is flagged.
func TestLookalikeHostOnTheCLI(t *testing.T) {
	h := newHostCLI(t)
	out, errOut, code := h.run(t, nil, "mcp", "add", "lookalike", "https://\u0430pple.com/mcp")
	if code != 0 {
		t.Fatalf("mcp add: code %d\n%s%s", code, out, errOut)
	}
	t.Logf("mcp add: %s", strings.TrimSpace(out))
	noLookalike(t, "mcp add", out)
	if out, errOut, code := h.run(t, nil, "mcp", "add", "userinfo", "https://apple.com@127.0.0.1:9/mcp"); code != 0 || !strings.Contains(out, "refused: it has userinfo") {
		t.Errorf("mcp add of a URL with userinfo: code %d, want it flagged:\n%s%s", code, out, errOut)
	}
	out, errOut, code = h.run(t, nil, "mcp", "list")
	if code != 0 {
		t.Fatalf("mcp list: code %d\n%s%s", code, out, errOut)
	}
	t.Logf("mcp list:\n%s", out)
	noLookalike(t, "mcp list", out)
	if !strings.Contains(out, "refused: it has userinfo") {
		t.Errorf("mcp list does not flag the URL with userinfo:\n%s", out)
	}
}

// host chat shows a server's URL-mode elicitation of a page on the
// look-alike host with the host in ASCII form; the user says no, so
// nothing is opened.
func TestLookalikeHostInChat(t *testing.T) {
	requireTmux(t)
	bin := buildHost(t)
	url := startPageServer(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"pages": map[string]any{"transport": "http", "url": url},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"name": adapter.PublicName("pages", "open_page"), "args": map[string]any{"url": lookalikePage, "id": "el-1"}}}},
		{"text": "The page was not opened."},
	})
	c := startChat(t, "mcp-host-lookalike-"+filepath.Base(dir), bin, dir, config, script, 160)
	c.waitText("servers: 1 ready")
	c.typeLine("sign me in")
	c.waitText("Allow pages/open_page?")
	c.keys("o")
	screen := c.waitText("asks you to continue on a page")
	t.Logf("the chat's confirm:\n%s", screen)
	i := strings.LastIndex(screen, "asks you to continue on a page")
	noLookalike(t, "the chat's elicitation confirm", screen[i:])
	if !strings.Contains(screen[i:], "host: "+lookalikeASCII) {
		t.Errorf("the chat's elicitation confirm does not name the host %s:\n%s", lookalikeASCII, screen[i:])
	}
	c.keys("n")
	c.waitText("The page was not opened.")
}
