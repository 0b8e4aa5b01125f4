package e2e_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// TestLoginInChromium is `host mcp login` as a person at a desktop runs it:
// the runtime asks, the answer is yes, and it opens the system browser
// (pkg/browser runs xdg-open; here xdg-open starts Debian's chromium under
// playwright-core, which can click). Chromium signs in on oidc-provider's
// login page, continues through its consent page and lands on the runtime's
// loopback callback page; the server is then usable from a new process.
func TestLoginInChromium(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	chromium, node := testenv.Playwright(t)
	root := testenv.RepoRoot(t)
	rs, provider := startOIDC(t)

	h := &hostCLI{bin: buildHost(t), dir: t.TempDir(), global: filepath.Join(t.TempDir(), "config.json")}
	env := []string{"MCP_HOST_TOKEN_STORE=file"}
	if out, errOut, code := h.run(t, env, "mcp", "add", "oidc", "--transport", "http", "--url", rs.URL()); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}

	// The desktop's browser launcher: xdg-open <url>, which pkg/browser runs.
	shims := t.TempDir()
	result := filepath.Join(t.TempDir(), "browser.json")
	script := filepath.Join(root, "e2e", "node", "browser-login.mjs")
	launcher := "#!/bin/sh\nexec " + shellQuote(node) + " " + shellQuote(script) + ` "$1" ` + shellQuote(result) + " >" + shellQuote(result+".log") + " 2>&1\n"
	if err := os.WriteFile(filepath.Join(shims, "xdg-open"), []byte(launcher), 0o755); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(h.bin, "mcp", "login", "oidc")
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), append([]string{
		"MCP_HOST_CONFIG=" + h.global, "MCP_HOST_SERVERS=", "DISPLAY=:0", "SSH_CONNECTION=", "SSH_TTY=", "MCP_HOST_NO_BROWSER=",
		"PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH"), "CHROMIUM=" + chromium,
	}, env...)...)
	stdin, _ := cmd.StdinPipe()
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "Open the login page? [Y/n]") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no consent question:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	io.WriteString(stdin, "y\n")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			log, _ := os.ReadFile(result + ".log")
			t.Fatalf("login: %v\n%s\nbrowser log:\n%s", err, out.String(), log)
		}
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("login did not finish:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Opened your browser") || !strings.Contains(out.String(), "oidc: logged in") {
		t.Errorf("login output:\n%s", out.String())
	}

	data, err := os.ReadFile(result)
	if err != nil {
		log, _ := os.ReadFile(result + ".log")
		t.Fatalf("the browser wrote no result: %v\n%s", err, log)
	}
	var page struct {
		URL, Title, Text, Error string
		Pages                   []string
	}
	if err := json.Unmarshal(data, &page); err != nil || page.Error != "" {
		t.Fatalf("browser: %v %s", err, page.Error)
	}
	if final, _, _ := strings.Cut(page.URL, "?"); !strings.HasPrefix(final, "http://127.0.0.1:") || !strings.HasSuffix(final, "/callback") || !strings.Contains(page.Text, "You are logged in to oidc") {
		t.Errorf("the browser ended on %s (%q): %q", final, page.Title, page.Text)
	}
	// The login page and the consent page are two interactions; the
	// redirects between them are not pages.
	var visited []string
	interactions := 0
	for _, p := range page.Pages {
		p, _, _ = strings.Cut(p, "?") // the callback's query holds the code
		visited = append(visited, p)
		if strings.HasPrefix(p, provider.Issuer+"/interaction/") {
			interactions++
		}
	}
	if interactions != 2 {
		t.Errorf("the browser did not go through the provider's login and consent pages: %v", visited)
	}

	if o, errOut, code := h.run(t, env, "mcp", "call", "oidc", "echo", "--args", `{"text":"from chromium"}`, "--yes"); code != 0 || !strings.Contains(o, "echo: from chromium") {
		t.Errorf("call after the browser login: %d\n%s%s", code, o, errOut)
	}
	for _, s := range hostSecrets(t, filepath.Join(filepath.Dir(h.global), "mcp-auth.json")) {
		if s != "" && strings.Contains(out.String(), s) {
			t.Error("a token appears in the login output")
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
