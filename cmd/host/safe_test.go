package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileText carries what a hostile server puts in its strings: OSC
// title, cursor movement, 8-bit CSI, DEL, BEL, a bidi override, a
// zero-width space and a tag character.
const hostileText = "\x1b]0;PWNED\x07\x1b[1A\x1b[2K\u009b2J\x7f\a\u202e\u200b\U000E0041"

// unsafeAt returns the first rune of s that drives a terminal, or -1.
func unsafeAt(s string) int {
	return strings.IndexFunc(s, func(r rune) bool { return termsafe.IsUnsafe(r) && r != '\n' })
}

// JSON output keeps the server's strings exactly, but writes every rune a
// terminal would act on as a \u escape.
func TestJSONSafe(t *testing.T) {
	v := map[string]any{"name": "srv" + hostileText, "list": []string{"a\u2066b", "plain"}}
	var out bytes.Buffer
	c := &cli{stdout: &out}
	if code := c.writeJSON(v); code != exitOK {
		t.Fatalf("writeJSON: %d", code)
	}
	if i := unsafeAt(out.String()); i >= 0 {
		t.Errorf("JSON output holds a terminal control at byte %d: %q", i, out.String())
	}
	var back map[string]any
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("JSON output does not decode: %v\n%s", err, out.String())
	}
	if back["name"] != v["name"] || back["list"].([]any)[0] != "a\u2066b" {
		t.Errorf("JSON output changed the strings: %q", back)
	}
	if plain := []byte(`{"a":"b"}`); !bytes.Equal(jsonSafe(plain), plain) {
		t.Error("jsonSafe changed plain JSON")
	}
}

// The login prompts show the issuer and URLs the servers sent without a
// byte that drives the terminal, in their display form (the host in ASCII
// form); URLs are kept whole.
func TestLoginPromptsAreSafe(t *testing.T) {
	long := "https://as.example/authorize?" + strings.Repeat("x", 600)
	p := runtime.LoginPrompt{Server: "notes", Issuer: "https://as.example" + hostileText, URL: long + hostileText, RedirectURI: "http://127.0.0.1:1/cb" + hostileText}
	var errOut bytes.Buffer
	c := &cli{stdin: strings.NewReader("y\npasted\n"), stderr: &errOut}
	u := terminalLoginUI{c}
	if ok, err := u.ConfirmLogin(context.Background(), p); !ok || err != nil {
		t.Fatalf("ConfirmLogin: %v %v", ok, err)
	}
	if _, err := u.PromptRedirect(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	out := errOut.String()
	if i := unsafeAt(out); i >= 0 || strings.Contains(out, "PWNED") {
		t.Errorf("a login prompt writes what the server sent (at %d):\n%q", i, out)
	}
	// An issuer or URL with hidden characters is flagged, not shown as if
	// it were fine (the runtime never opens such a URL).
	for _, want := range []string{`log in at "https://as.example" (refused: it has hidden characters)`, "(refused: it has hidden characters)\nThe browser", "http://127.0.0.1:1/cb"} {
		if !strings.Contains(out, want) {
			t.Errorf("the prompts lack %q:\n%s", want, out)
		}
	}

	// A clean URL is kept whole; a look-alike host is shown in ASCII form.
	errOut.Reset()
	c.stdin, c.in = strings.NewReader("y\npasted\n"), nil
	p = runtime.LoginPrompt{Server: "notes", Issuer: "https://\u0430pple.com", URL: long, RedirectURI: "http://127.0.0.1:1/cb"}
	if ok, err := u.ConfirmLogin(context.Background(), p); !ok || err != nil {
		t.Fatalf("ConfirmLogin: %v %v", ok, err)
	}
	if _, err := u.PromptRedirect(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	out = errOut.String()
	for _, want := range []string{"log in at https://xn--pple-43d.com.", long} {
		if !strings.Contains(out, want) {
			t.Errorf("the prompts lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\u0430pple") {
		t.Errorf("the look-alike issuer is shown under its false name:\n%s", out)
	}
}

// Errors and warnings quote servers and config files: failf and warnf
// write them without terminal controls, keeping their lines.
func TestMessagesAreSafe(t *testing.T) {
	var errOut bytes.Buffer
	c := &cli{stderr: &errOut}
	c.failf(exitFailure, "call: %v", "server said: bad"+hostileText+"\nsecond line")
	c.warnf("%s", "w"+hostileText)
	out := errOut.String()
	if i := unsafeAt(out); i >= 0 || strings.Contains(out, "PWNED") {
		t.Errorf("messages write terminal controls (at %d): %q", i, out)
	}
	if !strings.Contains(out, "host mcp: call: server said: bad\nsecond line\n") || !strings.Contains(out, "warning: w\n") {
		t.Errorf("messages: %q", out)
	}
}

// Tool results keep their lines and are never cut, but lose every
// terminal control.
func TestPrintResultIsSafe(t *testing.T) {
	long := strings.Repeat("y", 20000)
	var out bytes.Buffer
	printResult(&out, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "first" + hostileText + "\nsecond\t" + long}}})
	if i := unsafeAt(out.String()); i >= 0 || strings.Contains(out.String(), "PWNED") {
		t.Errorf("result writes terminal controls (at %d)", i)
	}
	if !strings.Contains(out.String(), "first\nsecond\t"+long+"\n") {
		t.Errorf("result lost lines or was cut: %.200q", out.String())
	}
}

// A server's URL in mcp list, get, add and import is shown in its display
// form: a look-alike host in ASCII form, userinfo flagged; a ${VAR}
// template as written.
func TestDescribeTargetShowsTheDisplayForm(t *testing.T) {
	for raw, want := range map[string]string{
		"https://\u0430pple.com/mcp":         "https://xn--pple-43d.com/mcp",
		"https://apple.com@evil.example/mcp": `"https://apple.com@evil.example/mcp" (refused: it has userinfo)`,
		"https://${HOST}/mcp":                "https://${HOST}/mcp",
		"http://127.0.0.1:8080/mcp":          "http://127.0.0.1:8080/mcp",
	} {
		if got := describeTarget(config.ServerConfig{URL: raw}); got != want {
			t.Errorf("describeTarget(%q) = %q, want %q", raw, got, want)
		}
	}
}
