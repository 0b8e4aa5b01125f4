package e2e_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// tmuxChat is `host chat` in a tmux pane, driven like a person would.
type tmuxChat struct {
	t       *testing.T
	session string
}

func (c *tmuxChat) tmux(args ...string) string {
	c.t.Helper()
	out, err := exec.Command("tmux", args...).CombinedOutput()
	// A new session can race the tmux server that the last test's killed
	// session is shutting down (tmux exits 1 at once): try it again.
	for try := 0; err != nil && len(args) > 0 && args[0] == "new-session" && try < 5; try++ {
		time.Sleep(200 * time.Millisecond)
		out, err = exec.Command("tmux", args...).CombinedOutput()
	}
	if err != nil {
		c.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is the pane with its scrollback, wrapped lines joined.
func (c *tmuxChat) screen() string {
	return c.tmux("capture-pane", "-t", c.session, "-p", "-J", "-S", "-500")
}

func (c *tmuxChat) keys(keys ...string) {
	c.tmux(append([]string{"send-keys", "-t", c.session}, keys...)...)
}

func (c *tmuxChat) typeLine(s string) {
	c.keys("-l", s)
	c.keys("Enter")
}

func (c *tmuxChat) waitFor(what string, ok func(screen string) bool) string {
	c.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		s := c.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("waiting for %s; the screen:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *tmuxChat) waitText(text string) string {
	c.t.Helper()
	return c.waitFor(strconvQuote(text), func(s string) bool { return strings.Contains(s, text) })
}

// requireTmux skips (fails under E2E_REQUIRED=1) without tmux, which
// drives host chat in these tests.
func requireTmux(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("tmux")
	testenv.Require(t, "tmux (Debian tmux)", err)
}

// startChat runs host chat (bin) in a tmux session of its own, width columns
// by 40 rows, with config as the global config, the scripted model script,
// and its permissions and log in dir; the runtime log is shown when the test
// fails, and the session ends with the test.
func startChat(t *testing.T, session, bin, dir, config, script string, width int) *tmuxChat {
	t.Helper()
	return startChatWith(t, chatLaunch{session: session, bin: bin, dir: dir, config: config, script: script, width: width, height: 40})
}

// chatLaunch is how startChatWith runs host chat under tmux.
type chatLaunch struct {
	session, bin string
	dir          string // chat.log goes here (and permissions.json with a script)
	config       string // MCP_HOST_CONFIG
	script       string // --script, when set, with --permissions in dir
	cwd          string // the chat's working directory, when set
	width        int
	height       int
	env          []string // more NAME=value for host chat
}

// startChatWith starts host chat in a detached tmux session; the session
// is killed, and the runtime log shown if the test failed, at cleanup.
func startChatWith(t *testing.T, l chatLaunch) *tmuxChat {
	t.Helper()
	c := &tmuxChat{t: t, session: l.session}
	args := []string{
		"env", "MCP_HOST_CONFIG=" + l.config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "DISPLAY=", "WAYLAND_DISPLAY=", uiDebugEnv,
		"PATH=" + os.Getenv("PATH"),
		// Kept catalogs of its own: a lazy server another test ran is
		// not idle here.
		"MCP_HOST_CACHE_DIR=" + filepath.Join(l.dir, "cache"),
	}
	args = append(append(args, l.env...), l.bin, "chat")
	if l.script != "" {
		args = append(args, "--script", l.script, "--permissions", filepath.Join(l.dir, "permissions.json"))
	}
	args = append(args, "--log", filepath.Join(l.dir, "chat.log"))
	tmuxArgs := []string{"new-session", "-d", "-s", c.session}
	if l.cwd != "" {
		tmuxArgs = append(tmuxArgs, "-c", l.cwd)
	}
	c.tmux(append(tmuxArgs, "-x", strconv.Itoa(l.width), "-y", strconv.Itoa(l.height), strings.Join(args, " "))...)
	t.Cleanup(func() {
		_ = exec.Command("tmux", "kill-session", "-t", c.session).Run()
		checkOwnUI(t, "host chat", filepath.Join(l.dir, "chat.log"))
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(l.dir, "chat.log"))
			t.Logf("runtime log:\n%s", log)
		}
	})
	return c
}

func strconvQuote(s string) string { return `"` + s + `"` }

// TestChatInTmux types a prompt, answers the permission prompt, opens
// /mcp, logs in to the demo's protected server with the pasted redirect,
// and checks what the screen shows at each step.
func TestChatInTmux(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := buildHost(t)
	demoEnv, err := servers.Start(context.Background(), servers.Options{AutoApprove: true})
	if err != nil {
		t.Fatal(err)
	}
	defer demoEnv.Close()

	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
		"notes":      map[string]any{"transport": "http", "url": demoEnv.MCPURL},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"text": "Let me echo that.", "calls": []map[string]any{{"name": adapter.PublicName("everything", "echo"), "args": map[string]any{"message": "hello from chat"}}}},
		{"text": "The server echoed: hello from chat."},
	})
	c := startChat(t, "mcp-host-chat-"+filepath.Base(dir), bin, dir, config, script, 120)

	c.waitFor("everything ready and notes waiting for a login", func(s string) bool {
		return strings.Contains(s, "servers: 1 ready, 1 auth_required")
	})
	c.waitText("notes: auth_required")

	// A prompt, a tool call behind the permission prompt.
	c.typeLine("please echo hello")
	c.waitText("Allow everything/echo?")
	screen := c.waitText("[o]nce  always this [t]ool")
	if !strings.Contains(screen, "hello from chat") || !strings.Contains(screen, "claimed by the server, untrusted") {
		t.Errorf("the permission prompt lacks the arguments or the untrusted hints:\n%s", screen)
	}
	c.keys("o")
	c.waitText("← everything/echo: Echo: hello from chat")
	c.waitText("The server echoed: hello from chat.")

	// The live /mcp table.
	c.typeLine("/mcp")
	screen = c.waitFor("the /mcp table", func(s string) bool {
		return regexp.MustCompile(`everything\s+stdio\s+global\s+true\s+ready\s+\d+`).MatchString(s) &&
			regexp.MustCompile(`notes\s+http\s+global\s+true\s+auth_required\s+0\s+not logged in`).MatchString(s)
	})
	mcpScreen := screen

	// Log in: consent, then (no display) the URL and the pasted redirect.
	c.typeLine("/login notes")
	c.waitText("[y]es, open the login page")
	c.keys("y")
	screen = c.waitText("paste the address here")
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/authorize\?\S+)`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no authorization URL on the screen:\n%s", screen)
	}
	redirect := followOnce(t, m[1])
	c.typeLine(redirect)
	c.waitText("notes: logged in (token valid until")
	c.waitFor("notes ready", func(s string) bool { return strings.Contains(s, "servers: 2 ready") })

	c.typeLine("/mcp notes")
	screen = c.waitText("token valid until:")
	if !strings.Contains(screen, "mcp-auth.json") {
		t.Errorf("/mcp notes does not say where tokens are kept:\n%s", screen)
	}
	if out := os.Getenv("CHAT_SCREEN_OUT"); out != "" {
		_ = os.WriteFile(out, []byte(mcpScreen), 0o644)
	}

	c.typeLine("/quit")
	deadline := time.Now().Add(20 * time.Second)
	for exec.Command("tmux", "has-session", "-t", c.session).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("chat did not quit:\n%s", c.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// followOnce returns where the authorization URL redirects: what a browser
// elsewhere would end on.
func followOnce(t *testing.T, u string) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.Contains(loc, "code=") {
		t.Fatalf("authorize: %d %q", resp.StatusCode, loc)
	}
	return loc
}
