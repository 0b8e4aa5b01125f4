package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// webUI is `host web` running with a scripted model, and the address it
// printed.
type webUI struct {
	cmd     *exec.Cmd
	out     *lockedBuffer
	address string
	dir     string
}

// startWeb runs host web with the config and script given, without opening
// a browser, and waits for the address.
func startWeb(t *testing.T, config, script string) *webUI {
	t.Helper()
	dir := filepath.Dir(config)
	w := &webUI{out: &lockedBuffer{}, dir: dir}
	w.cmd = exec.Command(buildHost(t), "web", "--no-browser", "--script", script,
		"--permissions", filepath.Join(dir, "permissions.json"), "--log", filepath.Join(dir, "web.log"))
	w.cmd.Dir = dir
	w.cmd.Env = append(os.Environ(), "MCP_HOST_CONFIG="+config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "MCP_HOST_CACHE_DIR="+filepath.Join(dir, "cache"), uiDebugEnv)
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	testenv.OwnGroup(w.cmd)
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- w.cmd.Wait() }()
	t.Cleanup(func() {
		_ = w.cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			testenv.KillGroup(w.cmd)
			t.Errorf("host web did not stop on SIGINT:\n%s", w.out.String())
		}
		checkOwnUI(t, "host web", filepath.Join(dir, "web.log"))
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "web.log"))
			t.Logf("host web output:\n%s\nruntime log:\n%s", w.out.String(), log)
		}
	})
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?key=[A-Za-z0-9_-]+`)
	deadline := time.Now().Add(60 * time.Second)
	for w.address == "" {
		w.address = addr.FindString(w.out.String())
		if time.Now().After(deadline) {
			t.Fatalf("host web printed no address:\n%s", w.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return w
}

// webResult is what web-ui.mjs observed.
type webResult struct {
	Steps    []string
	Error    string
	Console  []string
	CleanURL string
	Cookie   *struct {
		HTTPOnly bool   `json:"httpOnly"`
		SameSite string `json:"sameSite"`
	}
	Servers, ServersAfter             []string
	Approval, LoginConfirm, OpenURL   string
	LoginLanding                      string
	ConfirmAllow, AllowAnswer         string
	Pieces                            int
	DenyAnswer                        string
	FrameSandbox, FrameSrc            string
	AppTime1, AppTime2, AppTime3      string
	AppConfirm                        string
	AppMessageConfirm, AppMessageUser string
	AppLinkConfirm, AppLinkOpen       string
	AppLinkRejected                   bool
	PreactTime                        string
	ElicitForm, ElicitAnswer          string
	AppCancelled, DeniedAppAnswer     string
	FramesAfterDeny                   int
	AlwaysTime1, AlwaysTime2          string
	AskedAfterAlways                  int
	Frames                            []string
	Hostile                           map[string]any
}

// TestWebUIInChromium is `host web` as a person at a desktop uses it, in
// Debian's chromium under playwright-core: the printed address becomes a
// cookie and a clean URL; /mcp lists the servers; a prompt streams its
// answer; the permission prompt in the page allows a call (result shown)
// and denies one (denial shown); the vanillajs MCP App of a tool call
// renders in its sandboxed frame on another origin and gets the result;
// the app's own call goes through the permission prompt (allow: new time;
// deny: the app gets an error); and an app frame can read neither the page
// nor another app. The screenshot of the page with the app becomes
// docs/host-web.png when UPDATE_SCREENSHOT=1.
func TestWebUIInChromium(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	chromium, node := testenv.Playwright(t)
	root := testenv.RepoRoot(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	basic := testenv.NodeBin(t, "mcp-server-basic-vanillajs")
	preact := testenv.NodeBin(t, "mcp-server-basic-preact")
	demoEnv, err := servers.Start(context.Background(), servers.Options{AutoApprove: true})
	if err != nil {
		t.Fatal(err)
	}
	defer demoEnv.Close()

	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
		"basic":      map[string]any{"transport": "stdio", "command": basic[0], "args": append(basic[1:], "--stdio")},
		"preact":     map[string]any{"transport": "stdio", "command": preact[0], "args": append(preact[1:], "--stdio")},
		"notes":      map[string]any{"transport": "http", "url": demoEnv.MCPURL},
	}}})
	// A server the project's own file defines: it waits for approval.
	if err := os.MkdirAll(filepath.Join(dir, ".mcp-host"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, filepath.Join(dir, ".mcp-host", "config.json"), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"proj": map[string]any{"transport": "stdio", "command": buildHost(t), "args": []string{"demo-stdio-server"}},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"text": "Let me echo that.", "calls": []map[string]any{{"name": adapter.PublicName("everything", "echo"), "args": map[string]any{"message": "hello from the web"}}}},
		{"when_result_contains": "Echo: hello from the web", "text": "The server echoed: hello from the web."},
		{"calls": []map[string]any{{"name": adapter.PublicName("everything", "echo"), "args": map[string]any{"message": "second"}}}},
		{"calls": []map[string]any{{"name": adapter.PublicName("everything", "trigger-elicitation-request"), "args": map[string]any{}}}},
		{"when_result_contains": "Name: Ada", "text": "Thanks, Ada."},
		{"text": "Here is the time.", "calls": []map[string]any{{"name": adapter.PublicName("basic", "get-time"), "args": map[string]any{}}}},
		{"text": "The app shows the server's time."},
		{"text": "Thanks for the message from the app."},
		{"calls": []map[string]any{{"name": adapter.PublicName("preact", "get-time"), "args": map[string]any{}}}},
		{"text": "The preact app shows it too."},
		{"calls": []map[string]any{{"name": adapter.PublicName("basic", "get-time"), "args": map[string]any{}}}},
	})
	w := startWeb(t, config, script)

	shot := filepath.Join(dir, "host-web.png")
	result := filepath.Join(dir, "result.json")
	cmd := exec.Command(node, filepath.Join(root, "e2e", "node", "web-ui.mjs"), w.address, result, shot)
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	out, runErr := cmd.CombinedOutput()
	data, err := os.ReadFile(result)
	if err != nil {
		t.Fatalf("the browser wrote no result (%v): %v\n%s", runErr, err, out)
	}
	var r webResult
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Error != "" || runErr != nil {
		t.Fatalf("the browser failed after steps %v: %s\n%v\nlogin landing: %s\nconsole: %s\n%s", r.Steps, r.Error, runErr, r.LoginLanding, strings.Join(r.Console, "\n"), out)
	}

	t.Logf("browser steps: %v", r.Steps)
	for _, l := range r.Console {
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "pageerror") || strings.Contains(l, "404") {
			t.Errorf("the page logged %q", l)
		}
	}
	if strings.Contains(r.CleanURL, "key=") || !strings.HasSuffix(r.CleanURL, "/") {
		t.Errorf("the page stayed on %s, want the clean address", r.CleanURL)
	}
	if r.Cookie == nil || !r.Cookie.HTTPOnly || r.Cookie.SameSite != "Strict" {
		t.Errorf("cookie: %+v", r.Cookie)
	}
	if len(r.Servers) != 5 || !strings.Contains(strings.Join(r.Servers, "\n"), "basic ready") {
		t.Errorf("/mcp rows: %q", r.Servers)
	}
	if !strings.Contains(r.Approval, "demo-stdio-server") {
		t.Errorf("the approval shows no command line: %q", r.Approval)
	}
	if !strings.Contains(r.LoginConfirm, "notes") || !strings.Contains(r.OpenURL, demoEnv.IssuerURL) {
		t.Errorf("login: confirm %q, open-url card %q (issuer %s)", r.LoginConfirm, r.OpenURL, demoEnv.IssuerURL)
	}
	if after := strings.Join(r.ServersAfter, "\n"); !strings.Contains(after, "notes ready") || !strings.Contains(after, "proj ready") {
		t.Errorf("/mcp after the login and the approval: %q", r.ServersAfter)
	}
	if !strings.Contains(r.ConfirmAllow, "Allow everything/echo?") || !strings.Contains(r.ConfirmAllow, "hello from the web") || !strings.Contains(strings.ToLower(r.ConfirmAllow), "claimed by the server, untrusted") {
		t.Errorf("the permission prompt:\n%s", r.ConfirmAllow)
	}
	if !strings.Contains(r.AllowAnswer, "Echo: hello from the web") || !strings.Contains(r.AllowAnswer, "allowed (user)") {
		t.Errorf("the allowed call's answer:\n%s", r.AllowAnswer)
	}
	if r.Pieces < 3 {
		t.Errorf("the answer arrived in %d pieces; streamed text comes word by word", r.Pieces)
	}
	if !strings.Contains(r.DenyAnswer, "denied (user)") || strings.Contains(r.DenyAnswer, "Echo: second") {
		t.Errorf("the denied call's answer:\n%s", r.DenyAnswer)
	}
	if r.FrameSandbox != "allow-scripts" || strings.HasPrefix(r.FrameSrc, w.address[:strings.Index(w.address, "/?")]) {
		t.Errorf("app frame: sandbox %q, src %q (page %s)", r.FrameSandbox, r.FrameSrc, w.address)
	}
	if !strings.Contains(r.ElicitForm, "Your full, legal name") || !strings.Contains(r.ElicitForm, "Monica") || !strings.Contains(r.ElicitAnswer, "Name: Ada") {
		t.Errorf("elicitation: form %q, answer %q", r.ElicitForm, r.ElicitAnswer)
	}
	isTime := regexp.MustCompile(`^\d{4}-\d\d-\d\dT`)
	if !isTime.MatchString(r.AppTime1) || !isTime.MatchString(r.AppTime2) || r.AppTime1 == r.AppTime2 {
		t.Errorf("app times: from the tool result %q, after the allowed app call %q", r.AppTime1, r.AppTime2)
	}
	if !strings.Contains(r.AppConfirm, "Asked by the app of basic/get-time") {
		t.Errorf("the app call's permission prompt:\n%s", r.AppConfirm)
	}
	if !strings.Contains(r.AppMessageConfirm, "This is message text.") || !strings.Contains(r.AppMessageUser, "This is message text.") {
		t.Errorf("the app's message: confirm %q, shown as %q", r.AppMessageConfirm, r.AppMessageUser)
	}
	if !strings.Contains(r.AppLinkConfirm, "https://modelcontextprotocol.io/") || !strings.Contains(r.AppLinkOpen, "a link for the app of basic") || !r.AppLinkRejected {
		t.Errorf("the app's link: confirm %q, open card %q, the app told it was not opened: %v", r.AppLinkConfirm, r.AppLinkOpen, r.AppLinkRejected)
	}
	if !isTime.MatchString(r.PreactTime) || len(r.Frames) != 2 || r.Frames[0] != r.Frames[1] || strings.HasPrefix(w.address, r.Frames[0]) {
		t.Errorf("the preact app: time %q, frames on %q (page %s)", r.PreactTime, r.Frames, w.address)
	}
	if !strings.Contains(r.AppCancelled, "the call was denied") {
		t.Errorf("the app of a denied call was not told it was cancelled: %q (%d frames; the answer %q; console %q)", r.AppCancelled, r.FramesAfterDeny, r.DeniedAppAnswer, r.Console)
	}
	if !isTime.MatchString(r.AlwaysTime2) || r.AlwaysTime1 == r.AlwaysTime2 || r.AskedAfterAlways != 0 {
		t.Errorf("always allow this tool: times %q then %q, %d questions open after", r.AlwaysTime1, r.AlwaysTime2, r.AskedAfterAlways)
	}
	if r.AppTime3 != "[ERROR]" {
		t.Errorf("after the denied app call the app shows %q, want its error", r.AppTime3)
	}
	for _, k := range []string{"parentDocument", "parentLocation", "otherApp", "cookie", "storage", "fetchPage"} {
		if v, _ := r.Hostile[k].(string); !strings.HasPrefix(v, "blocked: ") {
			t.Errorf("a hostile app frame: %s = %v (want blocked); report %v", k, r.Hostile[k], r.Hostile)
		}
	}
	if os.Getenv("UPDATE_SCREENSHOT") == "1" {
		png, err := os.ReadFile(shot)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "docs", "host-web.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDemoOpensWebUI runs `host demo --auto-approve --web`: after the tour
// the demo opens the web UI with the system browser (xdg-open, pointed at
// chromium under playwright-core), where the person logs in to the demo's
// protected server from /mcp and gets an answer through a permission prompt.
// Ctrl-C ends the demo cleanly.
func TestDemoOpensWebUI(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	chromium, node := testenv.Playwright(t)
	root := testenv.RepoRoot(t)

	shims := t.TempDir()
	result := filepath.Join(t.TempDir(), "browser.json")
	script := filepath.Join(root, "e2e", "node", "web-demo.mjs")
	launcher := "#!/bin/sh\nexec " + shellQuote(node) + " " + shellQuote(script) + ` "$1" ` + shellQuote(result) + " >" + shellQuote(result+".log") + " 2>&1\n"
	if err := os.WriteFile(filepath.Join(shims, "xdg-open"), []byte(launcher), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildHost(t), "demo", "--auto-approve", "--web")
	cmd.Env = append(os.Environ(), "MCP_HOST_MODEL=", "DISPLAY=:0", "SSH_CONNECTION=", "SSH_TTY=", "MCP_HOST_NO_BROWSER=",
		"PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"), "CHROMIUM="+chromium, "MCP_HOST_CACHE_DIR="+t.TempDir())
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	testenv.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer testenv.KillGroup(cmd)
	deadline := time.Now().Add(4 * time.Minute)
	for {
		if _, err := os.Stat(result); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("host demo ended before the browser was done: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser wrote no result:\n%s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("host demo after Ctrl-C: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("host demo did not end on Ctrl-C")
	}
	var r struct {
		Before []string
		Answer string
		Error  string
	}
	data, _ := os.ReadFile(result)
	if err := json.Unmarshal(data, &r); err != nil || r.Error != "" {
		log, _ := os.ReadFile(result + ".log")
		t.Fatalf("browser: %v %s\n%s\ndemo output:\n%s", err, r.Error, log, out.String())
	}
	if !strings.Contains(out.String(), "run r1: completed") || !strings.Contains(out.String(), "host web: open http://127.0.0.1:") {
		t.Errorf("demo output:\n%s", out.String())
	}
	if len(r.Before) != 2 || !strings.Contains(r.Answer, "That is the weather in Paris") || !strings.Contains(r.Answer, "allowed (user)") {
		t.Errorf("the web step: rows %q, answer %q", r.Before, r.Answer)
	}
}
