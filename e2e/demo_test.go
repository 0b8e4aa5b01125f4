package e2e_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDemoAutoApprove runs `host demo --auto-approve` as CI and a newcomer
// would, to completion.
func TestDemoAutoApprove(t *testing.T) {
	bin := buildHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "demo", "--auto-approve")
	cmd.Env = append(cmd.Environ(), "MCP_HOST_MODEL=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("host demo --auto-approve: %v\n%s", err, out)
	}
	for _, want := range []string{
		"notes  http       auth_required", // discovery found the protected server
		"[consent]",
		"landed on 127.0.0.1:",
		"logged in; 1 client registration(s)",
		"notes/get_weather",
		"result (allowed by user): Paris: 12°C",
		"run r1: completed",
		"saved note #1",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !regexp.MustCompile(`notes\s+http\s+ready\s+4\s+\S+\s+token valid until`).Match(out) {
		t.Errorf("the final /mcp table does not show notes ready with a valid token")
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// lockedBuffer collects a child's output for polling.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// demoTerminal is `host demo --no-browser` with a person at its terminal.
type demoTerminal struct {
	t     *testing.T
	ctx   context.Context
	out   *lockedBuffer
	stdin io.WriteCloser
	done  chan error
}

func startDemoTerminal(t *testing.T) *demoTerminal {
	bin := buildHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, "demo", "--no-browser")
	cmd.Env = append(cmd.Environ(), "MCP_HOST_MODEL=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &demoTerminal{t: t, ctx: ctx, out: &lockedBuffer{}, stdin: stdin, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.done <- cmd.Wait() }()
	return d
}

// waitMarker waits for the n-th occurrence of marker in the output.
func (d *demoTerminal) waitMarker(marker string, n int) string {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(d.out.String(), marker) < n {
		if time.Now().After(deadline) {
			d.t.Fatalf("no %q (#%d) in the output:\n%s", marker, n, d.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return d.out.String()
}

func (d *demoTerminal) answer(s string) {
	if _, err := io.WriteString(d.stdin, s+"\n"); err != nil {
		d.t.Fatal(err)
	}
}

// authURL is the authorization URL the demo printed last.
func (d *demoTerminal) authURL(text string) string {
	m := regexp.MustCompile(`(?m)^\s+(http://127\.0\.0\.1:\d+/authorize\?\S+)$`).FindAllStringSubmatch(text, -1)
	if m == nil {
		d.t.Fatalf("no authorization URL printed:\n%s", text)
	}
	return m[len(m)-1][1]
}

// finish answers the permission prompts (one direct call and three calls
// in the agent turn) with answers and waits for the demo to end well.
func (d *demoTerminal) finish(answers ...string) {
	for i, a := range answers {
		d.waitMarker("deny with [r]eason?", i+1)
		d.answer(a)
	}
	select {
	case err := <-d.done:
		if err != nil {
			d.t.Fatalf("host demo: %v\n%s", err, d.out.String())
		}
	case <-d.ctx.Done():
		d.t.Fatalf("host demo did not finish:\n%s", d.out.String())
	}
}

// TestDemoPasteBack plays the person at the terminal of `host demo
// --no-browser`: says yes to the login, completes the consent page of the
// demo authorization server (as a browser elsewhere would), pastes the
// address the browser ended on, and answers each permission prompt.
func TestDemoPasteBack(t *testing.T) {
	d := startDemoTerminal(t)
	d.waitMarker("Log in now? [Y/n]", 1)
	d.answer("y")
	d.answer(approveConsent(t, d.authURL(d.waitMarker("pasted address:", 1))))
	d.finish("o", "o", "o", "o")
	for _, want := range []string{"logged in; 1 client registration(s)", "run r1: completed", "saved note #1"} {
		if !strings.Contains(d.out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, d.out.String())
		}
	}
}

// TestDemoPasteBackRecovers: a bad paste ("hello") is asked again, saying
// why; then the browser reaches the loopback callback itself (same machine,
// or an SSH port forward) and the login completes without a paste, at once.
func TestDemoPasteBackRecovers(t *testing.T) {
	d := startDemoTerminal(t)
	d.waitMarker("Log in now? [Y/n]", 1)
	d.answer("y")
	authURL := d.authURL(d.waitMarker("pasted address:", 1))
	d.answer("hello")
	text := d.waitMarker("pasted address:", 2)
	if !strings.Contains(text, "That was not the address the login ends on (pasted URL has neither code nor error)") {
		t.Fatalf("the second ask does not say why the paste was not taken:\n%s", text)
	}
	callback := approveConsent(t, authURL)
	resp, err := http.Get(callback) // the browser lands on the callback
	if err != nil {
		t.Fatalf("the callback %s: %v\n%s", callback, err, d.out.String())
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(page, []byte("You are logged in to notes")) {
		t.Errorf("the callback page: %s", page)
	}
	d.waitMarker("logged in; 1 client registration(s)", 1)
	d.finish("o", "o", "o", "o")
	if !strings.Contains(d.out.String(), "run r1: completed") {
		t.Errorf("output:\n%s", d.out.String())
	}
}

// approveConsent does what a person does in a browser: opens the
// authorization URL, presses Approve, and returns the address the browser
// is sent to (the runtime's loopback callback, which need not load).
func approveConsent(t *testing.T, authURL string) string {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="request" value="([^"]+)"`).FindSubmatch(page)
	if resp.StatusCode != http.StatusOK || m == nil || !bytes.Contains(page, []byte("Allow access?")) {
		t.Fatalf("consent page: status %d\n%s", resp.StatusCode, page)
	}
	u, _ := url.Parse(authURL)
	resp, err = noRedirect.PostForm(u.Scheme+"://"+u.Host+"/consent", url.Values{"request": {string(m[1])}, "decision": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.Contains(loc, "code=") {
		t.Fatalf("approve: status %d, Location %q", resp.StatusCode, loc)
	}
	return loc
}

// answerPrompts answers the n permission prompts of the demo, each with
// what answer gives for the tool it asks about ("server/tool"); an answer
// "r:why" denies with a reason.
func (d *demoTerminal) answerPrompts(n int, answer func(tool string) string) {
	d.t.Helper()
	asked := regexp.MustCompile(`\[permission\] run (\S+)\?`)
	reasons := 0
	for i := 1; i <= n; i++ {
		text := d.waitMarker("deny with [r]eason?", i)
		all := asked.FindAllStringSubmatch(text, -1)
		a := answer(all[len(all)-1][1])
		if why, ok := strings.CutPrefix(a, "r:"); ok {
			d.answer("r")
			reasons++
			d.waitMarker("reason for the model:", reasons)
			d.answer(why)
			continue
		}
		d.answer(a)
	}
	select {
	case err := <-d.done:
		if err != nil {
			d.t.Fatalf("host demo: %v\n%s", err, d.out.String())
		}
	case <-d.ctx.Done():
		d.t.Fatalf("host demo did not finish:\n%s", d.out.String())
	}
}

// TestDemoAnswerFollowsDenials: the scripted agent turn of the demo says
// what happened, not what it planned: a denied note is not "saved", a
// denied weather lookup is not "looked up" (and then no note is taken).
func TestDemoAnswerFollowsDenials(t *testing.T) {
	login := func(t *testing.T, d *demoTerminal) {
		d.waitMarker("Log in now? [Y/n]", 1)
		d.answer("y")
		d.answer(approveConsent(t, d.authURL(d.waitMarker("pasted address:", 1))))
	}
	answer := func(t *testing.T, out string) string {
		i := strings.LastIndex(out, "run r1: ")
		j := strings.LastIndex(out[:max(i, 0)], "Let me check the weather")
		if i < 0 || j < 0 {
			t.Fatalf("no agent turn in the output:\n%s", out)
		}
		return out[j:i]
	}

	t.Run("the note denied", func(t *testing.T) {
		d := startDemoTerminal(t)
		login(t, d)
		d.answerPrompts(4, func(tool string) string {
			if tool == "notes/add_note" {
				return "r:not now"
			}
			return "o"
		})
		a := answer(t, d.out.String())
		if strings.Contains(a, "saved a note") || !strings.Contains(a, "did not save a note") {
			t.Errorf("the answer after the note was denied:\n%s", a)
		}
	})
	t.Run("the weather denied", func(t *testing.T) {
		d := startDemoTerminal(t)
		login(t, d)
		first := true
		d.answerPrompts(3, func(tool string) string {
			if tool == "notes/get_weather" && !first {
				return "r:not the weather" // a plain deny ends the turn
			}
			first = false
			return "o"
		})
		a := answer(t, d.out.String())
		if strings.Contains(a, "I looked up the weather") || strings.Contains(a, "saved a note") || strings.Contains(a, "add_note") || !strings.Contains(a, "You denied one of the lookups") {
			t.Errorf("the answer after the weather was denied:\n%s", a)
		}
	})
}
