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

// TestDemoPasteBack plays the person at the terminal of `host demo
// --no-browser`: says yes to the login, completes the consent page of the
// demo authorization server (as a browser elsewhere would), pastes the
// address the browser ended on, and answers each permission prompt.
func TestDemoPasteBack(t *testing.T) {
	bin := buildHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "demo", "--no-browser")
	cmd.Env = append(cmd.Environ(), "MCP_HOST_MODEL=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// waitFor the n-th occurrence of marker in the output.
	waitMarker := func(marker string, n int) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for strings.Count(out.String(), marker) < n {
			if time.Now().After(deadline) {
				t.Fatalf("no %q (#%d) in the output:\n%s", marker, n, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		return out.String()
	}
	answer := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}

	waitMarker("Log in now? [Y/n]", 1)
	answer("y")
	text := waitMarker("pasted address:", 1)
	m := regexp.MustCompile(`(?m)^\s+(http://127\.0\.0\.1:\d+/authorize\?\S+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no authorization URL printed:\n%s", text)
	}
	answer(approveConsent(t, m[1]))

	// One direct call and three calls in the agent turn.
	for i := 1; i <= 4; i++ {
		waitMarker("deny with [r]eason?", i)
		answer("o")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("host demo: %v\n%s", err, out.String())
		}
	case <-ctx.Done():
		t.Fatalf("host demo did not finish:\n%s", out.String())
	}
	for _, want := range []string{"logged in; 1 client registration(s)", "run r1: completed", "saved note #1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
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
