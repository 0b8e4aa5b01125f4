package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pageArgs ask the test server's open_page tool for a URL-mode
// elicitation, and for completion notices afterwards.
type pageArgs struct {
	URL string `json:"url"`
	ID  string `json:"id"`
	// Complete lists the elicitation ids the server then announces as
	// complete (a real one, and ones the host never saw).
	Complete []string `json:"complete,omitempty"`
}

// startPageServer runs a go-sdk Streamable HTTP server whose open_page
// tool sends a URL-mode elicitation and answers with the action the
// client gave.
func startPageServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "pages", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "open_page", Description: "asks the user to continue on a page"},
		func(ctx context.Context, req *mcp.CallToolRequest, a pageArgs) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Mode: "url", Message: "Enter your API key on our page \x1b]0;pwned\x07", URL: a.URL, ElicitationID: a.ID,
			})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "elicit: " + err.Error()}}}, nil, nil
			}
			for _, id := range a.Complete {
				if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id}); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// A URL-mode elicitation is a page the server wants the user to open. The
// host never opens it without the user's yes, shows the server's message
// stripped, opens only https or loopback http URLs, and forwards the
// completion notice only for a page the user opened.
func TestURLElicitation(t *testing.T) {
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
	consent := protocol.AnswerYes
	h.ui.setAnswer(func(_ context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, *p)
		return &protocol.ConfirmResult{Answer: consent}, nil
	})
	h.ui.mu.Lock()
	h.ui.openURL = func(string) bool { return true }
	h.ui.mu.Unlock()
	openedURLs := func() []protocol.OpenURLParams {
		h.ui.mu.Lock()
		defer h.ui.mu.Unlock()
		return append([]protocol.OpenURLParams(nil), h.ui.urls...)
	}

	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-elicit"},
		Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true},
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "pages ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "pages"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	callPage := func(a pageArgs) string {
		t.Helper()
		raw, _ := json.Marshal(a)
		res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "pages", Tool: "open_page", Arguments: raw})
		if err != nil {
			t.Fatalf("tool.call %s: %v", a.URL, err)
		}
		if len(res.Result.Content) == 0 {
			t.Fatalf("tool.call %s: empty result", a.URL)
		}
		return res.Result.Content[0].Text
	}
	counts := func() (int, int) {
		n := len(openedURLs())
		mu.Lock()
		defer mu.Unlock()
		return len(asked), n
	}

	// Consent given: the page opens through the UI, the server hears accept,
	// and its completion notice for this id (and only this id) reaches the UI.
	page := "https://pages.example/continue?session=1"
	if got := callPage(pageArgs{URL: page, ID: "el-1", Complete: []string{"el-1", "never-asked", "el-1"}}); got != "accept" {
		t.Fatalf("with consent the server heard %q, want accept", got)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0].Kind != protocol.ConfirmKindElicitation || asked[0].Elicitation == nil ||
		asked[0].Elicitation.URL != page || asked[0].Elicitation.Server != "pages" || asked[0].Elicitation.ElicitationID != "el-1" {
		t.Errorf("consent asked as %+v, want one elicitation confirm for %s", asked, page)
	} else if m := asked[0].Elicitation.Message; strings.ContainsAny(m, "\x1b\x07") || !strings.Contains(m, "Enter your API key") {
		t.Errorf("the server's message reached the UI as %q: want it stripped of controls", m)
	}
	if opened := openedURLs(); len(opened) != 1 || opened[0].URL != page || opened[0].Purpose != protocol.OpenURLElicitation || opened[0].ElicitationID != "el-1" {
		t.Errorf("ui.open_url.request: %+v, want one for %s with purpose elicitation", openedURLs(), page)
	}
	mu.Unlock()
	waitFor(t, 10*time.Second, "mcp.elicitation.complete", func() bool {
		return len(h.wireNotes(protocol.MethodElicitationComplete)) > 0
	})
	time.Sleep(200 * time.Millisecond) // room for a wrongly forwarded second notice
	notes := h.wireNotes(protocol.MethodElicitationComplete)
	if len(notes) != 1 {
		t.Fatalf("%d completion notices reached the UI, want 1 (the server sent el-1 twice and one id never asked): %s", len(notes), notes)
	}
	var done protocol.ElicitationCompleteParams
	if err := json.Unmarshal(notes[0], &done); err != nil || done.Server != "pages" || done.ElicitationID != "el-1" {
		t.Errorf("completion notice %s, want server pages, id el-1", notes[0])
	}

	// Consent refused: nothing opens and the server hears decline.
	mu.Lock()
	consent = protocol.AnswerNo
	mu.Unlock()
	if got := callPage(pageArgs{URL: "https://pages.example/other", ID: "el-2", Complete: []string{"el-2"}}); got != "decline" {
		t.Errorf("without consent the server heard %q, want decline", got)
	}
	if a, o := counts(); a != 2 || o != 1 {
		t.Errorf("after a refusal: %d confirms, %d pages opened; want 2 and still 1", a, o)
	}

	// URLs the browser must never get are declined without asking anyone.
	mu.Lock()
	consent = protocol.AnswerYes
	mu.Unlock()
	for _, bad := range []string{
		"javascript:alert(1)", "file:///etc/passwd", "http://pages.example/plain-http",
		"data:text/html,hi", "https://pages.example/\u202egnp.exe",
	} {
		if got := callPage(pageArgs{URL: bad, ID: "bad"}); got != "decline" {
			t.Errorf("%q: the server heard %q, want decline", bad, got)
		}
	}
	if a, o := counts(); a != 2 || o != 1 {
		t.Errorf("hostile URLs reached the user: %d confirms, %d pages opened; want 2 and 1", a, o)
	}
	if n := len(h.wireNotes(protocol.MethodElicitationComplete)); n != 1 {
		t.Errorf("%d completion notices after refusals, want still 1", n)
	}
}
