package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCLICallToolNames: host mcp call takes the tool's own name and the
// public name host mcp tools lists first; a typo gets the closest name.
func TestCLICallToolNames(t *testing.T) {
	h := newHostCLI(t)
	if _, errOut, code := h.run(t, nil, "mcp", "add", "demo", "--", h.bin, "demo-stdio-server"); code != 0 {
		t.Fatal(errOut)
	}
	tools, _, _ := h.run(t, nil, "mcp", "tools", "demo")
	public := adapter.PublicName("demo", "word_count")
	if !strings.Contains(tools, public) {
		t.Fatalf("host mcp tools does not list %s:\n%s", public, tools)
	}
	for _, name := range []string{"word_count", public} {
		out, errOut, code := h.run(t, nil, "mcp", "call", "demo", name, "--args", `{"text":"one two three"}`, "--yes")
		if code != 0 || !strings.Contains(out, "3 words") {
			t.Errorf("call demo %s: exit %d\n%s%s", name, code, out, errOut)
		}
	}
	_, errOut, code := h.run(t, nil, "mcp", "call", "demo", "word_cuont", "--args", `{"text":"x"}`, "--yes")
	if code != 2 || !strings.Contains(errOut, `did you mean "word_count"?`) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("a typo: exit %d, stderr %q; want 2 and one line with the closest name", code, errOut)
	}
}

// TestCLIErrorsSayEachThingOnce: a server that fails its initialize is
// reported by list --status, test and call with its id once and the method
// once (not `server "bad": ... calling "initialize": sending "initialize":
// rejected by transport: ...`).
func TestCLIErrorsSayEachThingOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer srv.Close()
	h := newHostCLI(t)
	if _, errOut, code := h.run(t, nil, "mcp", "add", "bad", srv.URL+"/mcp"); code != 0 {
		t.Fatal(errOut)
	}
	list, _, _ := h.run(t, nil, "mcp", "list", "--status")
	test, _, _ := h.run(t, nil, "mcp", "test", "bad")
	_, call, _ := h.run(t, nil, "mcp", "call", "bad", "x")
	for name, out := range map[string]string{"list --status": list, "test": test, "call": call} {
		if strings.Count(out, `"bad"`) > 1 || strings.Count(out, "initialize") != 1 || strings.Contains(out, "rejected by transport") {
			t.Errorf("host mcp %s repeats itself:\n%s", name, out)
		}
	}
}

// TestCLILoginOnlyWhereAsked: host mcp login on a server that is ready and
// never asked for authorization says it needs none, opening nothing.
func TestCLILoginOnlyWhereAsked(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "open", Version: "1"}, nil)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	h := newHostCLI(t)
	if _, errOut, code := h.run(t, nil, "mcp", "add", "open", ts.URL); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := h.run(t, []string{"MCP_HOST_NO_BROWSER=1"}, "mcp", "login", "open", "--no-browser")
	if code != 0 || !strings.Contains(out, "open: needs no login") || strings.Contains(out+errOut, "Open this URL") {
		t.Errorf("login to a server that asked for none: exit %d\n%s%s", code, out, errOut)
	}
}
