package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// addStdio adds a stdio server running hostilestdio with args to h's
// global config.
func addStdio(t *testing.T, h *hostCLI, id, bin string, args ...string) {
	t.Helper()
	argv := append([]string{"mcp", "add", id, "--", bin}, args...)
	if out, errOut, code := h.run(t, nil, argv...); code != 0 {
		t.Fatalf("add %s: code %d\n%s%s", id, code, out, errOut)
	}
}

// timedRun is h.run with its wall time.
func timedRun(t *testing.T, h *hostCLI, args ...string) (string, string, int, time.Duration) {
	t.Helper()
	start := time.Now()
	out, errOut, code := h.run(t, nil, args...)
	return out, errOut, code, time.Since(start)
}

// serverEvent is one line hostilestdio -events wrote.
type serverEvent struct {
	kind string
	pid  int
	at   time.Time
}

// readEvents reads the events hostilestdio -events wrote to file, in order.
func readEvents(t *testing.T, file string) []serverEvent {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var evs []serverEvent
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e serverEvent
		var ns int64
		if _, err := fmt.Sscanf(line, "%s %d %d", &e.kind, &e.pid, &ns); err != nil {
			t.Fatalf("events file %s: line %q: %v", file, line, err)
		}
		e.at = time.Unix(0, ns)
		evs = append(evs, e)
	}
	return evs
}

// oneShotGraceBound bounds the time between a stubborn server's stdin
// closing and its SIGTERM in a one-shot command: the command's grace is
// 50 ms (20x that here, for a loaded machine), the runtime's default 2 s.
const oneShotGraceBound = time.Second

// checkShortGrace checks, from the events of one command's stubborn
// server, that the command ended it with its short grace: SIGTERM came
// soon after stdin closed, where the runtime's default grace would wait
// 2 s. It asserts what the command did, not how fast the machine is.
func checkShortGrace(t *testing.T, what string, evs []serverEvent) {
	t.Helper()
	var eof, term time.Time
	for _, e := range evs {
		switch {
		case e.kind == "eof" && eof.IsZero():
			eof = e.at
		case e.kind == "sigterm" && term.IsZero():
			term = e.at
		}
	}
	if term.IsZero() {
		t.Errorf("%s: the stubborn server never got SIGTERM (events %v)", what, evs)
		return
	}
	if eof.IsZero() {
		return // TERM came before the server noticed stdin closing
	}
	gap := term.Sub(eof)
	t.Logf("%s: SIGTERM %s after stdin closed", what, gap.Round(time.Millisecond))
	if gap > oneShotGraceBound {
		t.Errorf("%s: SIGTERM came %s after stdin closed, want the one-shot grace (50 ms; bound %s), not the runtime's 2 s", what, gap.Round(time.Millisecond), oneShotGraceBound)
	}
}

// TestCLIOneShotStubbornStdioExitsSoon runs one-shot commands against a
// stdio server that ignores stdin closing and SIGTERM. The session's grace
// after each is 2 s by default; a one-shot command has printed its answer
// and must not wait for them: it ends the server's process group (stdin
// close, TERM, KILL) with a grace of 50 ms. The server records when its
// stdin closed and when SIGTERM came: that gap is asserted, not the
// command's wall time (logged), and every process of the server's tree is
// gone when the command exits.
func TestCLIOneShotStubbornStdioExitsSoon(t *testing.T) {
	bin := buildHostile(t)
	h := newHostCLI(t)
	// In the server's working directory, which its sandbox lets it write.
	tree := filepath.Join(h.dir, "tree")
	events := filepath.Join(h.dir, "events")
	addStdio(t, h, "stubborn", bin, "-stubborn", "-tree", tree, "-events", events)
	for _, args := range [][]string{
		{"mcp", "call", "stubborn", "echo", "--args", `{"text":"hi there"}`, "--yes"},
		{"mcp", "test", "stubborn"},
		{"mcp", "tools", "stubborn"},
		{"mcp", "get", "stubborn"},
	} {
		os.Remove(events)
		out, errOut, code, took := timedRun(t, h, args...)
		if code != 0 {
			t.Fatalf("%s: code %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		t.Logf("%s: %s", strings.Join(args, " "), took.Round(time.Millisecond))
		checkShortGrace(t, strings.Join(args, " "), readEvents(t, events))
		for role, pid := range readTree(t, tree) {
			if running(pid) {
				t.Errorf("%s: the server's %s (pid %d) is still running after the command exited", strings.Join(args, " "), role, pid)
			}
		}
	}
}

// TestCLIOneShotExitsSoonAfterItsAnswer: `host mcp call` on a stdio
// server that ignores stdin closing and SIGTERM ends the server with its
// short grace once the answer is on stdout (asserted from the server's
// events), and exits within 3 s of the answer: over 10x the 0.1-0.3 s it
// takes on the 2-core reference machine, under the over 4 s of the
// runtime's default grace.
func TestCLIOneShotExitsSoonAfterItsAnswer(t *testing.T) {
	bin := buildHostile(t)
	h := newHostCLI(t)
	events := filepath.Join(h.dir, "events") // the server's cwd, which its sandbox lets it write
	addStdio(t, h, "stubborn", bin, "-stubborn", "-events", events)
	cmd := exec.Command(h.bin, "mcp", "call", "stubborn", "echo", "--args", `{"text":"the answer"}`, "--yes")
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), "MCP_HOST_CONFIG="+h.global, "MCP_HOST_SERVERS=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	os.Remove(events) // only this command's server
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var answered time.Time
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "the answer") && answered.IsZero() {
			answered = time.Now()
		}
	}
	err = cmd.Wait()
	exited := time.Now()
	if err != nil || answered.IsZero() {
		t.Fatalf("call: %v, answered %v\n%s", err, !answered.IsZero(), stderr.String())
	}
	after := exited.Sub(answered)
	t.Logf("exit %s after the answer", after.Round(time.Millisecond))
	checkShortGrace(t, "mcp call", readEvents(t, events))
	if after > 3*time.Second {
		t.Errorf("the command exited %s after its answer, want < 3 s (it takes 0.1-0.3 s; the default grace over 4 s)", after.Round(time.Millisecond))
	}
}

// checkConcurrentStarts checks, from the events of n slow servers, that a
// command started them all at once: every server started before any of
// them was done with its start delay. One after another, each would start
// only after the one before answered. The order of events is asserted,
// not the command's wall time.
func checkConcurrentStarts(t *testing.T, what string, evs []serverEvent, n int) {
	t.Helper()
	var lastStart, firstReady time.Time
	starts := 0
	for _, e := range evs {
		switch e.kind {
		case "start":
			starts++
			if e.at.After(lastStart) {
				lastStart = e.at
			}
		case "ready":
			if firstReady.IsZero() || e.at.Before(firstReady) {
				firstReady = e.at
			}
		}
	}
	if starts != n || firstReady.IsZero() {
		t.Errorf("%s: %d servers started (want %d), first ready %v", what, starts, n, firstReady)
		return
	}
	if !lastStart.Before(firstReady) {
		t.Errorf("%s: the last of %d servers started %s after the first was ready: they were connected one after another", what, n, lastStart.Sub(firstReady).Round(time.Millisecond))
	}
}

// TestCLIConnectsServersConcurrently gives five stdio servers that each
// take 2 s to start: commands that touch them all start them at once
// (every server starts before the first has finished its delay), which
// the servers' own events show, whatever the machine's speed.
func TestCLIConnectsServersConcurrently(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	bin := buildHostile(t)
	h := newHostCLI(t)
	const n = 5
	events := filepath.Join(h.dir, "events") // the servers' cwd, which their sandbox lets them write
	for i := range n {
		addStdio(t, h, fmt.Sprintf("slow%d", i), bin, "-start-delay", "2s", "-events", events)
	}
	os.Remove(events)
	out, errOut, code, took := timedRun(t, h, "mcp", "tools", "--json")
	if code != 0 {
		t.Fatalf("tools: code %d\n%s%s", code, out, errOut)
	}
	var tools []struct {
		Server string `json:"server"`
	}
	if err := json.Unmarshal([]byte(out), &tools); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, out)
	}
	servers := map[string]bool{}
	for _, tl := range tools {
		servers[tl.Server] = true
	}
	if len(servers) != n {
		t.Errorf("tools --json lists tools of %d servers, want %d:\n%s", len(servers), n, out)
	}
	checkConcurrentStarts(t, "tools", readEvents(t, events), n)
	toolsTook := took
	// host mcp test with no id tests every enabled server, at once.
	os.Remove(events)
	out, errOut, code, took = timedRun(t, h, "mcp", "test")
	if code != 0 || strings.Count(out, "ok: slow") != n {
		t.Fatalf("test (all): code %d, want %d ok lines\n%s%s", code, n, out, errOut)
	}
	checkConcurrentStarts(t, "test (all)", readEvents(t, events), n)
	testTook := took
	// host mcp list --status connects them all at once too.
	os.Remove(events)
	out, errOut, code, took = timedRun(t, h, "mcp", "list", "--status", "--json")
	var rows []struct {
		ID    string `json:"id"`
		State string `json:"state"`
		Tools *int   `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != n {
		t.Fatalf("list --status --json: code %d, %v\n%s%s", code, err, out, errOut)
	}
	for _, r := range rows {
		if r.State != "ready" || r.Tools == nil || *r.Tools == 0 {
			t.Errorf("list --status: %s is %q with tools %v, want ready with its tools", r.ID, r.State, r.Tools)
		}
	}
	checkConcurrentStarts(t, "list --status", readEvents(t, events), n)
	if out, _, _, _ := timedRun(t, h, "mcp", "list", "--status"); !strings.Contains(out, "ready (2 tools)") {
		t.Errorf("list --status does not show the state and tool count:\n%s", out)
	}
	t.Logf("tools: %s; test (all): %s; list --status: %s", toolsTook.Round(time.Millisecond), testTook.Round(time.Millisecond), took.Round(time.Millisecond))
}
