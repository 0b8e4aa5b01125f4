package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A server at a URL the managed policy allows that redirects (307, same
// origin) to a path the policy denies is not followed there: the refused
// endpoint is never contacted, and the error names the rule.
func TestPolicyRedirectHopJudged(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	h := newHostCLI(t)
	var blocked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/blocked") {
			blocked.Add(1)
			http.Error(w, "should never be reached", http.StatusTeapot)
			return
		}
		http.Redirect(w, r, "/blocked/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	policy := filepath.Join(t.TempDir(), "managed.json")
	writeJSONFile(t, policy, map[string]any{"deny": []any{map[string]any{"url": "http://127.0.0.1:*/blocked*"}}})
	env := []string{"MCP_HOST_MANAGED_POLICY=" + policy}
	if out, errOut, code := h.run(t, env, "mcp", "add", "hop", srv.URL+"/ok/mcp"); code != 0 {
		t.Fatalf("add: code %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := h.run(t, env, "mcp", "test", "hop")
	if code == 0 || !strings.Contains(out+errOut, "it redirected to "+srv.URL+"/blocked/mcp") || !strings.Contains(out+errOut, `deny[0] {"url":"http://127.0.0.1:*/blocked*"}`) {
		t.Errorf("mcp test: code %d, want a refusal naming the rule:\n%s%s", code, out, errOut)
	}
	if n := blocked.Load(); n != 0 {
		t.Errorf("the refused endpoint was contacted %d times", n)
	}
}
