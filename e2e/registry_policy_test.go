package e2e_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// loopbackRegistry serves seed over the registry's v0.1 API on loopback:
// GET /v0.1/servers (search) and /v0.1/servers/{name}/versions/{version}.
func loopbackRegistry(t *testing.T, seed ...map[string]any) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		item := func(s map[string]any) map[string]any { return map[string]any{"server": s, "_meta": map[string]any{}} }
		if r.URL.Path == "/v0.1/servers" {
			var out []any
			for _, s := range seed {
				if strings.Contains(s["name"].(string), r.URL.Query().Get("search")) {
					out = append(out, item(s))
				}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"servers": out, "metadata": map[string]any{"count": len(out)}})
			return
		}
		for _, s := range seed {
			p := "/v0.1/servers/" + strings.ReplaceAll(s["name"].(string), "/", "%2F") + "/versions/"
			if v, ok := strings.CutPrefix(r.URL.EscapedPath(), p); ok && (v == s["version"] || v == "latest") {
				_ = json.NewEncoder(w).Encode(item(s))
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRegistryOnlyPolicy: under "user_servers": "registry_only" with the
// organization's "registries", search and add use the organization's
// registry (not the user's), an entry installed from it runs, the same
// entry with its command line edited is blocked saying so, and an entry
// installed from another registry is blocked naming that registry.
func TestRegistryOnlyPolicy(t *testing.T) {
	node := testenv.Node(t)
	v1 := mcpb(t, "1.0.0")
	bundles := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(v1) }))
	defer bundles.Close()
	org := loopbackRegistry(t, bundleEntry("io.github.e2e/bundle", "1.0.0", bundles.URL+"/b.mcpb", sha(v1)))
	other := loopbackRegistry(t, bundleEntry("io.github.e2e/elsewhere", "1.0.0", bundles.URL+"/b.mcpb", sha(v1)))

	h := newHostCLI(t)
	tmp := t.TempDir()
	policyFile := filepath.Join(tmp, "managed.json")
	writeJSONFile(t, policyFile, map[string]any{"user_servers": "registry_only", "registries": []string{org}})
	env := []string{"MCP_HOST_REGISTRY=" + other, "HOME=" + filepath.Join(tmp, "home"),
		"MCP_HOST_CACHE_DIR=" + filepath.Join(tmp, "cache"), "MCP_HOST_DATA_DIR=" + filepath.Join(tmp, "data"),
		"MCP_HOST_TOKEN_STORE=file", "PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + "/usr/bin:/bin"}
	withPolicy := append(append([]string{}, env...), "MCP_HOST_MANAGED_POLICY="+policyFile)

	// The user's MCP_HOST_REGISTRY points elsewhere: without the policy it
	// is used, from another registry.
	if out, errOut, code := h.run(t, env, "mcp", "add", "foreign", "--from-registry", "io.github.e2e/elsewhere", "--var", "GREETING=hi", "--yes"); code != 0 {
		t.Fatalf("add from the user's registry without a policy: code %d:\n%s%s", code, out, errOut)
	}
	// Under the policy, search and add use only the organization's.
	out, errOut, code := h.run(t, withPolicy, "mcp", "search", "io.github.e2e")
	if code != 0 || !strings.Contains(out, "io.github.e2e/bundle") || strings.Contains(out, "elsewhere") {
		t.Fatalf("search under the policy: code %d, want only the organization's registry:\n%s%s", code, out, errOut)
	}
	if out, errOut, code := h.run(t, withPolicy, "mcp", "add", "b", "--from-registry", "io.github.e2e/bundle", "--var", "GREETING=hello", "--yes"); code != 0 {
		t.Fatalf("add from the organization's registry: code %d:\n%s%s", code, out, errOut)
	}
	if out, errOut, code := h.run(t, withPolicy, "mcp", "call", "b", "greet", "--yes"); code != 0 || !strings.Contains(out, "hello from bundle 1.0.0") {
		t.Fatalf("call b under registry_only: code %d:\n%s%s", code, out, errOut)
	}

	// The same entry with its command line edited by hand.
	var cfg map[string]any
	data, err := os.ReadFile(h.global)
	if err != nil || json.Unmarshal(data, &cfg) != nil {
		t.Fatalf("read %s: %v", h.global, err)
	}
	servers := cfg["mcp"].(map[string]any)["servers"].(map[string]any)
	edited := map[string]any{}
	for k, v := range servers["b"].(map[string]any) {
		edited[k] = v
	}
	marker := filepath.Join(tmp, "edited-ran")
	edited["command"], edited["args"] = "sh", []string{"-c", `touch "$0"`, marker}
	servers["edited"] = edited
	writeJSONFile(t, h.global, cfg)

	out, errOut, code = h.run(t, withPolicy, "mcp", "list", "--json")
	var rows []struct {
		ID, State string
		Policy    *struct{ Rule, Reason string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil {
		t.Fatalf("list: code %d:\n%s%s", code, out, errOut)
	}
	want := map[string]string{
		"b":       "",
		"edited":  `it runs "GREETING=hello sh -c`,
		"foreign": "its recorded registry " + other + ` is not one of the policy's "registries" (` + org + ")",
	}
	for _, r := range rows {
		w, ok := want[r.ID]
		switch {
		case !ok:
			t.Errorf("unexpected server %s", r.ID)
		case w == "" && r.Policy != nil:
			t.Errorf("%s is blocked: %+v", r.ID, r.Policy)
		case w != "" && (r.State != "blocked_by_policy" || r.Policy == nil || r.Policy.Rule != `"user_servers": "registry_only"` || !strings.Contains(r.Policy.Reason, w)):
			t.Errorf("%s: state %s policy %+v, want blocked_by_policy by registry_only with %q", r.ID, r.State, r.Policy, w)
		}
		delete(want, r.ID)
	}
	if len(want) > 0 {
		t.Errorf("list lacks %v:\n%s", want, out)
	}
	if _, errOut, code := h.run(t, withPolicy, "mcp", "call", "edited", "greet", "--yes"); code == 0 || !strings.Contains(errOut, "registry_only") {
		t.Errorf("call edited: code %d, want refused by registry_only:\n%s", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the edited command line ran")
	}
}
