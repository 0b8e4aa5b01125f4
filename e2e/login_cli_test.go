package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
)

// TestCLILoginAcrossProcesses logs in with `host mcp login --no-browser`
// (consent answered, the consent page approved as a browser elsewhere
// would, the redirect pasted back), then uses the server from new
// processes without logging in again, then logs out. Tokens live in the
// file store; no output ever shows one.
func TestCLILoginAcrossProcesses(t *testing.T) {
	env, err := servers.Start(context.Background(), servers.Options{TokenLifetime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	h := newHostCLI(t)
	tokenEnv := []string{"MCP_HOST_TOKEN_STORE=file"}
	if out, errOut, code := h.run(t, tokenEnv, "mcp", "add", "notes", "--transport", "http", "--url", env.MCPURL); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	var outputs []string
	run := func(args ...string) (string, int) {
		out, errOut, code := h.run(t, tokenEnv, args...)
		outputs = append(outputs, out, errOut)
		return out + errOut, code
	}

	if out, code := run("mcp", "get", "notes"); code != exitAuthRequiredCode || !strings.Contains(out, "not logged in") {
		t.Fatalf("get before login: code %d\n%s", code, out)
	}

	// The login, driven like a person at the terminal.
	l, authURL, _ := startTerminalLogin(t, h, "notes", tokenEnv)
	out := l.out
	l.finish(t, approveConsent(t, authURL))
	outputs = append(outputs, out.String())
	if !strings.Contains(out.String(), "logged in; token valid until") || !strings.Contains(out.String(), "mcp-auth.json") {
		t.Errorf("login output:\n%s", out.String())
	}

	// New processes: no login, no registration.
	if o, code := run("mcp", "call", "notes", "get_weather", "--args", `{"city":"Paris"}`, "--yes"); code != 0 || !strings.Contains(o, "Paris: 12°C") {
		t.Errorf("call after login: code %d\n%s", code, o)
	}
	if o, code := run("mcp", "get", "notes"); code != 0 || !strings.Contains(o, "token valid until") || !strings.Contains(o, "tokens kept in:") {
		t.Errorf("get after login: code %d\n%s", code, o)
	}
	if env.Registrations() != 1 {
		t.Errorf("%d registrations, want 1", env.Registrations())
	}
	tokenFile := filepath.Join(filepath.Dir(h.global), "mcp-auth.json")
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	secrets := tokensIn(t, tokenFile)
	if len(secrets) == 0 {
		t.Fatal("no tokens in the token file")
	}

	if o, code := run("mcp", "logout", "notes"); code != 0 || !strings.Contains(o, "logged out") {
		t.Errorf("logout: %d\n%s", code, o)
	}
	if o, code := run("mcp", "get", "notes"); code != exitAuthRequiredCode {
		t.Errorf("get after logout: code %d\n%s", code, o)
	}
	for _, o := range outputs {
		for _, s := range secrets {
			if strings.Contains(o, s) {
				t.Errorf("a token appeared in command output")
			}
		}
	}
}

const exitAuthRequiredCode = 3

// tokensIn returns the access and refresh tokens kept in a token file.
func tokensIn(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Accounts map[string]struct {
			Token *struct {
				AccessToken  string `json:"access_token"`
				RefreshToken string `json:"refresh_token"`
			} `json:"token"`
		} `json:"accounts"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range doc.Accounts {
		if a.Token != nil {
			out = append(out, a.Token.AccessToken, a.Token.RefreshToken)
		}
	}
	return slicesCompact(out)
}

func slicesCompact(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && !bytes.Contains([]byte(strings.Join(out, "\x00")), []byte(x)) {
			out = append(out, x)
		}
	}
	return out
}

// terminalLogin is `host mcp login <id> --no-browser` driven as a person at
// a terminal would.
type terminalLogin struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *lockedBuffer
}

// startTerminalLogin starts the login, answers its consent question with
// y, and returns the authorization URL it printed and everything it
// printed so far; the login then waits for the pasted redirect.
func startTerminalLogin(t *testing.T, h *hostCLI, id string, env []string) (*terminalLogin, string, string) {
	t.Helper()
	cmd := exec.Command(h.bin, "mcp", "login", id, "--no-browser")
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), append([]string{"MCP_HOST_CONFIG=" + h.global, "MCP_HOST_SERVERS="}, env...)...)
	stdin, _ := cmd.StdinPipe()
	l := &terminalLogin{cmd: cmd, stdin: stdin, out: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = l.out, l.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l.waitOut(t, "Open the login page? [Y/n]")
	io.WriteString(stdin, "y\n")
	text := l.waitOut(t, "Paste that whole address here:")
	m := regexp.MustCompile(`(?m)^\s+(http://127\.0\.0\.1:\d+/authorize\?\S+)$`).FindStringSubmatch(text)
	if m == nil {
		cmd.Process.Kill()
		t.Fatalf("no URL printed:\n%s", text)
	}
	return l, m[1], text
}

// waitOut waits until the login printed marker and returns all it printed.
func (l *terminalLogin) waitOut(t *testing.T, marker string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(l.out.String(), marker) {
		if time.Now().After(deadline) {
			l.cmd.Process.Kill()
			t.Fatalf("no %q in:\n%s", marker, l.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return l.out.String()
}

// finish pastes the redirect the browser ended on and waits for the login
// to succeed.
func (l *terminalLogin) finish(t *testing.T, redirect string) {
	t.Helper()
	io.WriteString(l.stdin, redirect+"\n")
	if err := l.cmd.Wait(); err != nil {
		t.Fatalf("login: %v\n%s", err, l.out.String())
	}
}
