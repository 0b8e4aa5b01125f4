package e2e_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// longAnswer is a scripted answer longer than a narrow terminal: it must
// wrap between words.
const longAnswer = "This answer is a deliberately long sentence that has to wrap at word boundaries on a narrow terminal, never inside a word."

// TestChatLayout runs `host chat` under tmux at 60 and 200 columns: Ctrl+C
// clears the line and quits only when pressed twice, Ctrl+C at the
// permission prompt denies in one line (Esc too), a failing server's error is
// printed once and counted, an answer's Markdown is rendered, the /mcp table and the status line fit with
// no stale status line, a long answer wraps between words, and the
// login's paste-back screen keeps its box and instruction. With
// CHAT_SCREEN_DIR set the screens are written there (docs/chat-60.txt,
// docs/chat-200.txt).
func TestChatLayout(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := buildHost(t)
	for _, width := range []int{60, 200} {
		t.Run(strconv.Itoa(width), func(t *testing.T) { chatLayout(t, bin, everything, width) })
	}
}

func chatLayout(t *testing.T, bin string, everything []string, width int) {
	demoEnv, err := servers.Start(context.Background(), servers.Options{AutoApprove: true})
	if err != nil {
		t.Fatal(err)
	}
	defer demoEnv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + l.Addr().String() + "/mcp"
	l.Close() // nothing listens there: every connection attempt fails

	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
		"notes":      map[string]any{"transport": "http", "url": demoEnv.MCPURL},
		"broken":     map[string]any{"transport": "http", "url": deadURL},
	}}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"text": "Let me echo that.", "calls": []map[string]any{{"name": adapter.PublicName("everything", "echo"), "args": map[string]any{"message": "hello"}}}},
		{"text": "Again.", "calls": []map[string]any{{"name": adapter.PublicName("everything", "echo"), "args": map[string]any{"message": "again"}}}},
		{"text": longAnswer + "\n\n- **first** point\n- second `point`\n"},
	})
	c := startChat(t, "mcp-host-layout-"+strconv.Itoa(width)+"-"+filepath.Base(filepath.Dir(dir)), bin, dir, config, script, width)
	// visible is the pane as it is now, without scrollback: a stale line
	// left by a redraw shows here.
	visible := func() string { return c.tmux("capture-pane", "-t", c.session, "-p") }

	c.waitFor("everything ready", func(s string) bool { return strings.Contains(s, "servers: 1 ready") })

	// A failing server: its error once, the repeats counted.
	screen := c.waitFor("a repeat count for broken", func(s string) bool {
		return regexp.MustCompile(`broken: error .*\(×[2-9]\d*\)`).MatchString(s)
	})
	if n := strings.Count(screen, "broken: error"); n != 2 { // the transcript line and the counted line
		t.Errorf("broken's error appears %d times (want the line and its count):\n%s", n, screen)
	}

	// Ctrl+C clears the line; on an empty line it says how to quit.
	c.keys("-l", "half a thought")
	c.waitText("> half a thought")
	c.keys("C-c")
	c.waitFor("the line cleared", func(s string) bool { return !strings.Contains(s, "half a thought") })
	c.keys("C-c")
	c.waitText("press Ctrl+C again to quit")
	time.Sleep(3500 * time.Millisecond) // the second press comes too late
	c.keys("C-c")
	c.waitText("press Ctrl+C again to quit")
	if err := exec.Command("tmux", "has-session", "-t", c.session).Run(); err != nil {
		t.Fatal("chat quit on a Ctrl+C that came after the window")
	}

	// Ctrl+C at the permission prompt: an explicit deny, one line.
	time.Sleep(3500 * time.Millisecond)
	c.typeLine("please echo")
	c.waitText("[o]nce  always this [t]ool")
	c.keys("C-c")
	screen = c.waitText("everything/echo: denied (Ctrl+C)")
	if strings.Contains(screen, "deny_with_reason") || strings.Count(screen, "denied") != 1 {
		t.Errorf("the denial is not one line:\n%s", screen)
	}

	// Esc at the permission prompt: the same, visibly.
	c.typeLine("again")
	c.waitFor("the second permission prompt", func(s string) bool {
		return strings.Count(s, "[o]nce  always this [t]ool") == 1 && strings.Contains(s, "Again.")
	})
	c.keys("Escape")
	c.waitText("everything/echo: denied (Esc)")

	// A long answer wraps between words.
	c.typeLine("and now?")
	c.waitFor("the long answer", func(s string) bool { return regexp.MustCompile(`never\s+inside\s+a\s+word\.`).MatchString(s) })
	screen = c.waitText("• first point")
	if strings.Contains(screen, "**first**") || strings.Contains(screen, "`point`") {
		t.Errorf("the answer's Markdown is shown raw:\n%s", screen)
	}
	phys := c.tmux("capture-pane", "-t", c.session, "-p", "-S", "-500")
	for _, w := range strings.Fields(longAnswer + " Type a prompt, or /help for commands. /mcp shows the servers.") {
		if !regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(w) + `(\s|$)`).MatchString(phys) {
			t.Errorf("the word %q was cut by a wrap:\n%s", w, phys)
		}
	}

	// The script has no step left: the error is printed once.
	c.typeLine("one more")
	c.waitText("no matching step left in the script")
	time.Sleep(500 * time.Millisecond)
	if n := strings.Count(c.screen(), "no matching step left"); n != 1 {
		t.Errorf("the run's error is printed %d times:\n%s", n, c.screen())
	}

	// The /mcp table and the status line fit; one status line.
	c.typeLine("/mcp")
	c.waitFor("the /mcp table", func(s string) bool { return regexp.MustCompile(`notes\s.*auth_required`).MatchString(s) })
	v := visible()
	checkFits(t, v, width)
	if n := strings.Count(v, "servers: "); n != 1 {
		t.Errorf("%d status lines on the screen:\n%s", n, v)
	}
	for _, l := range strings.Split(v, "\n") {
		l = strings.TrimRight(l, " ")
		if strings.HasPrefix(l, "│") && !strings.HasSuffix(l, "│") {
			t.Errorf("a cut table line: %q", l)
		}
	}
	writeScreen(t, width, v)

	// The login's paste-back screen: the box whole, the instruction uncut.
	c.keys("Escape")
	c.typeLine("/login notes")
	c.waitText("[y]es, open the login page")
	c.keys("y")
	c.waitText("paste the address here (Esc cancels)")
	v = visible()
	for _, l := range strings.Split(v, "\n") {
		l = strings.TrimRight(l, " ")
		if strings.HasPrefix(l, "│") != strings.HasSuffix(l, "│") {
			t.Errorf("a stray border character: %q\n%s", l, v)
		}
	}
	checkFits(t, v, width)
	// The URL may be drawn a frame after the instruction under load.
	authURL := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/authorize\?\S+)`)
	m := authURL.FindStringSubmatch(c.screen())
	for deadline := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(deadline); m = authURL.FindStringSubmatch(c.screen()) {
		time.Sleep(100 * time.Millisecond)
	}
	if m == nil {
		t.Fatalf("no authorization URL on the screen:\n%s", c.screen())
	}
	c.typeLine(followOnce(t, m[1]))
	c.waitText("notes: logged in")

	// Ctrl+C twice quits.
	c.keys("C-c")
	c.keys("C-c")
	deadline := time.Now().Add(20 * time.Second)
	for exec.Command("tmux", "has-session", "-t", c.session).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("two Ctrl+C did not quit:\n%s", c.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkFits fails for a line of the visible pane that fills the whole
// width: the screen's own lines are shorter, so a full one was cut or
// wrapped by the terminal.
func checkFits(t *testing.T, v string, width int) {
	t.Helper()
	for _, l := range strings.Split(v, "\n") {
		if utf8.RuneCountInString(strings.TrimRight(l, " ")) > width {
			t.Errorf("a line wider than %d columns: %q", width, l)
		}
	}
}

func writeScreen(t *testing.T, width int, v string) {
	dir := os.Getenv("CHAT_SCREEN_DIR")
	if dir == "" {
		return
	}
	name := filepath.Join(dir, "chat-"+strconv.Itoa(width)+".txt")
	if err := os.WriteFile(name, []byte(strings.TrimRight(v, "\n ")+"\n"), 0o644); err != nil {
		t.Error(err)
	}
}
