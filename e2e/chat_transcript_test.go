package e2e_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// The transcript of host chat as issue 36 found it: a step's text before
// its calls, JSON results with their lines, Tab's list gone once used,
// and an error said once.

// startEverythingChat runs host chat under tmux, width columns wide, with
// server-everything (trusted when trust is set, its env holding env) and
// the scripted model script.
func startEverythingChat(t *testing.T, name string, script []map[string]any, width int, trust bool, env map[string]string) *tmuxChat {
	t.Helper()
	requireTmux(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	bin := buildHost(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	srv := map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio"), "trust": trust}
	if env != nil {
		srv["env"] = env
	}
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"everything": srv}}})
	scriptFile := filepath.Join(dir, "script.json")
	writeJSONFile(t, scriptFile, script)
	c := startChat(t, "mcp-host-"+name+"-"+filepath.Base(filepath.Dir(dir)), bin, dir, config, scriptFile, width)
	c.waitText("servers: 1 ready")
	return c
}

// lineOf is the index of the first of lines that contains s, or -1.
func lineOf(lines []string, s string) int {
	for i, l := range lines {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// A model step with text and two tool calls shows, in this order: the
// step's text, its two call lines, what the person answered, the results
// and the next step's text; every round, however the chat's output is
// scheduled (issue 36 item 4). The chat printed each event's lines with
// a command of its own, and those commands ran in any order, so a call
// line sometimes came above the text.
func TestChatStepOrder(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	const rounds = 8
	var script []map[string]any
	for i := range rounds {
		script = append(script,
			map[string]any{"text": fmt.Sprintf("Adding round %d now.", i), "calls": []map[string]any{
				call("everything/get-sum", map[string]any{"a": i, "b": 100}),
				call("everything/get-sum", map[string]any{"a": i, "b": 200}),
			}},
			map[string]any{"text": fmt.Sprintf("Round %d added.", i)})
	}
	c := startEverythingChat(t, "chatorder", script, 100, false, nil)
	for i := range rounds {
		c.typeLine(fmt.Sprintf("add round %d", i))
		text := fmt.Sprintf("Adding round %d now.", i)
		call1 := fmt.Sprintf(`→ everything/get-sum {"a":%d,"b":100}`, i)
		call2 := fmt.Sprintf(`→ everything/get-sum {"a":%d,"b":200}`, i)
		if i == 0 {
			// The first round asks: the question comes under the text
			// and both calls, and the answer is said under them.
			screen := c.waitText("[o]nce  always this [t]ool  always this [s]erver")
			lines := strings.Split(screen, "\n")
			at, c1, c2, q := lineOf(lines, text), lineOf(lines, call1), lineOf(lines, call2), lineOf(lines, "Allow everything/get-sum?")
			if at < 0 || c1 < 0 || c2 < 0 || !(at < c1 && c1 < c2 && c2 < q) {
				t.Errorf("want the text, then the calls, then the question (lines %d, %d, %d, %d):\n%s", at, c1, c2, q, screen)
			}
			c.keys("s")
		}
		done := fmt.Sprintf("Round %d added.", i)
		screen := c.waitFor(done, func(s string) bool {
			return strings.Contains(s, done) && strings.Count(s, fmt.Sprintf("← everything/get-sum: The sum of %d and", i)) == 2
		})
		lines := strings.Split(screen, "\n")
		start := lineOf(lines, fmt.Sprintf("> add round %d", i))
		lines = lines[start:]
		at, c1, c2, end := lineOf(lines, text), lineOf(lines, call1), lineOf(lines, call2), lineOf(lines, done)
		r1, r2 := lineOf(lines, fmt.Sprintf("The sum of %d and 100", i)), lineOf(lines, fmt.Sprintf("The sum of %d and 200", i))
		if !(0 < at && at < c1 && c1 < c2 && c2 < min(r1, r2) && max(r1, r2) < end) {
			t.Errorf("round %d: want the text, the calls in order, the results, the answer (lines %d, %d, %d, %d, %d, %d):\n%s",
				i, at, c1, c2, r1, r2, end, strings.Join(lines, "\n"))
		}
		if i == 0 {
			if a := lineOf(lines, "everything/get-sum: always"); a >= 0 && !(c2 < a && a < min(r1, r2)) {
				t.Errorf("the answer is not said between the calls and the results (line %d):\n%s", a, strings.Join(lines, "\n"))
			}
		}
	}
}

// A tool result of pretty-printed JSON keeps its lines and their
// indentation (wrapped to the pane), instead of one line with runs of
// spaces (issue 36 item 1). server-everything's get-env answers
// JSON.stringify(process.env, null, 2).
func TestChatJSONResultKeepsLines(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	script := []map[string]any{
		callStep(call("everything/get-env", map[string]any{})),
		{"text": "That is its environment."},
	}
	c := startEverythingChat(t, "chatjson", script, 80, true, map[string]string{"ISSUE36_MARKER": "json-keeps-lines"})
	c.typeLine("show the environment")
	screen := c.waitText("That is its environment.")
	if !regexp.MustCompile(`(?m)^← everything/get-env: \{\s*$`).MatchString(screen) {
		t.Errorf("the result's first line is not its own:\n%s", screen)
	}
	if !regexp.MustCompile(`(?m)^ +"ISSUE36_MARKER": "json-keeps-lines",?\s*$`).MatchString(screen) {
		t.Errorf("a member of the JSON is not on its own indented line:\n%s", screen)
	}
	if regexp.MustCompile(`", {2,}"`).MatchString(screen) {
		t.Errorf("the JSON's lines were joined by runs of spaces:\n%s", screen)
	}
	checkFits(t, c.tmux("capture-pane", "-t", c.session, "-p"), 80)
}

// The candidates Tab lists are shown under the input while it is what
// they complete, and are gone, from the screen and its scrollback, once
// the input changes or is sent (issue 36 item 2).
func TestChatCompletionListIsTransient(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	c := startEverythingChat(t, "chattab", []map[string]any{{"text": "ok"}}, 140, true, nil)

	// The /commands: the list, then a letter typed: gone. The screen is
	// read with its spaces squeezed: the list wraps with the pane.
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	listed := func(list string) func(string) bool {
		return func(s string) bool { return strings.Contains(flat(s), list) }
	}
	const commands = "/help /login /logout /mcp"
	c.keys("-l", "/")
	c.keys("Tab")
	c.waitFor("the commands listed", listed(commands))
	c.keys("-l", "he")
	c.waitFor("the list gone once the input changed", func(s string) bool { return !listed(commands)(s) })

	// A prompt's argument values: the list, then the input sent.
	c.keys("C-u")
	c.keys("-l", "/everything:completable-prompt department=Sales name=")
	c.keys("Tab")
	const names = "name=David name=Eve name=Frank"
	c.waitFor("the names listed", listed(names))
	c.keys("-l", "Eve")
	c.keys("Enter")
	screen := c.waitText("user: Please promote Eve to the head of the Sales team.")
	if listed(names)(screen) || listed(commands)(screen) {
		t.Errorf("a list of candidates stayed in the transcript:\n%s", screen)
	}
}

// A resource that is not there fails the message with an error that
// names its server and request once, not twice (issue 36 item 3).
func TestChatMissingResourceErrorOnce(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	c := startEverythingChat(t, "chatmissing", []map[string]any{{"text": "ok"}}, 120, true, nil)
	const uri = "demo://resource/static/document/no-such-file.md"
	c.typeLine("what does @everything:" + uri + " say?")
	// Read with its spaces squeezed: the error wraps with the pane.
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	screen := c.waitFor("the error", func(s string) bool { return strings.Contains(squeeze(s), " not found") })
	flat := squeeze(screen)
	if n := strings.Count(flat, `server "everything": resources/read`); n != 1 {
		t.Errorf("server \"everything\": resources/read is said %d times:\n%s", n, screen)
	}
	if !strings.Contains(flat, "Resource "+uri+" not found") {
		t.Errorf("the error lacks the server's words:\n%s", screen)
	}
}
