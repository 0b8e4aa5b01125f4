package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// pathCounter is a loopback HTTP server that counts the requests for each
// path and answers none of them as MCP: a blocked server must never be
// contacted, an allowed one is.
type pathCounter struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newPathCounter(t *testing.T) *pathCounter {
	pc := &pathCounter{hits: map[string]int{}}
	pc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pc.mu.Lock()
		pc.hits[r.URL.Path]++
		pc.mu.Unlock()
		http.Error(w, "not an MCP server", http.StatusNotFound)
	}))
	t.Cleanup(pc.Close)
	return pc
}

func (pc *pathCounter) count(prefix string) int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	n := 0
	for p, c := range pc.hits {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// policyFixture is a managed policy, a loopback server to block, and the
// servers a user configured around it.
type policyFixture struct {
	policy, marker string
	lb             *pathCounter
	denyURL        string // deny[0]'s rule as the status shows it
}

// writePolicy writes the organization's policy: deny[0] the URL
// wildcard, deny[1] any "sh -c <script>" command line; a forced server the
// policy approves itself (TestPolicyForcedServerApproval asks the user);
// project servers and trust off.
func newPolicyFixture(t *testing.T, bin, dir string) *policyFixture {
	f := &policyFixture{policy: filepath.Join(dir, "managed.json"), marker: filepath.Join(dir, "evil-ran"), lb: newPathCounter(t)}
	writeJSONFile(t, f.policy, map[string]any{
		"deny": []any{
			map[string]any{"url": "http://127.0.0.1:*/blocked*"},
			map[string]any{"command": []string{"sh", "-c", "*", "*", "*"}},
		},
		"servers":             map[string]any{"corp": map[string]any{"command": bin, "args": []string{"demo-stdio-server"}}},
		"servers_preapproved": true,
		"project_servers":     false,
		"trust":               false,
	})
	f.denyURL = `deny[0] {"url":"http://127.0.0.1:*/blocked*"}`
	return f
}

// userServers are what a user configured by hand: a denied URL, the same
// behind a ${VAR}, a denied command line (which would leave a marker), an
// allowed URL and command, and the forced server's id turned off.
func (f *policyFixture) userServers(bin string) map[string]any {
	return map[string]any{
		"blocked": map[string]any{"url": f.lb.URL + "/blocked/mcp"},
		"viavar":  map[string]any{"url": "${POLICY_BLOCKED_URL}"},
		"evil":    map[string]any{"command": "sh", "args": []string{"-c", `touch "$0"; exec "$1" demo-stdio-server`, f.marker, bin}},
		"ok":      map[string]any{"url": f.lb.URL + "/ok/mcp"},
		"fine":    map[string]any{"command": bin, "args": []string{"demo-stdio-server"}, "trust": true},
		"corp":    map[string]any{"enabled": false},
	}
}

func (f *policyFixture) env() []string {
	return []string{"MCP_HOST_MANAGED_POLICY=" + f.policy, "POLICY_BLOCKED_URL=" + f.lb.URL + "/blocked/other"}
}

// TestPolicyCLI: host mcp add refuses what the policy denies and writes
// nothing; list and get show blocked_by_policy with the rule; a blocked
// server is never contacted or started, an allowed one is; the user's
// config cannot turn the forced server off, nor remove it; project
// servers are off; a malformed policy fails closed with its position.
func TestPolicyCLI(t *testing.T) {
	h := newHostCLI(t)
	f := newPolicyFixture(t, h.bin, filepath.Dir(h.dir))
	env := f.env()

	out, errOut, code := h.run(t, env, "mcp", "add", "blocked", f.lb.URL+"/blocked/mcp")
	if code != 4 || !strings.Contains(errOut, "blocked by the managed policy "+f.policy+": "+f.denyURL) {
		t.Errorf("add blocked: code %d, want 4 and the rule\n%s%s", code, out, errOut)
	}
	if _, errOut, code := h.run(t, env, "mcp", "add", "viavar", "${POLICY_BLOCKED_URL}"); code != 4 || !strings.Contains(errOut, f.denyURL) {
		t.Errorf("add behind a ${VAR}: code %d\n%s", code, errOut)
	}
	if _, errOut, code := h.run(t, env, "mcp", "add", "evil", "--", "sh", "-c", "true", "a", "b"); code != 4 || !strings.Contains(errOut, `deny[1] {"command":["sh","-c","*","*","*"]}`) {
		t.Errorf("add a denied command: code %d\n%s", code, errOut)
	}
	if _, err := os.Stat(h.global); err == nil {
		data, _ := os.ReadFile(h.global)
		t.Errorf("a refused add wrote the config:\n%s", data)
	}
	if out, errOut, code := h.run(t, env, "mcp", "add", "ok", f.lb.URL+"/ok/mcp"); code != 0 {
		t.Errorf("add an allowed URL: code %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := h.run(t, env, "mcp", "add", "corp", "https://elsewhere.example/mcp", "--replace"); code != 4 || !strings.Contains(errOut, "provided by the organization") {
		t.Errorf("add over the forced server: code %d\n%s", code, errOut)
	}

	// What a user writes by hand is judged the same way.
	writeJSONFile(t, h.global, map[string]any{"version": 1, "mcp": map[string]any{"servers": f.userServers(h.bin)}})
	writeJSONFile(t, filepath.Join(h.dir, ".mcp-host", "config.json"), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"proj": map[string]any{"url": f.lb.URL + "/ok/project"},
	}}})
	out, errOut, code = h.run(t, env, "mcp", "list", "--json")
	if code != 0 {
		t.Fatalf("list: code %d\n%s%s", code, out, errOut)
	}
	var rows []struct {
		ID, Source, State string
		Enabled           bool
		Policy            *protocol.PolicyStatus
		Warnings          []string
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	byID := map[string]int{}
	for i, r := range rows {
		byID[r.ID] = i
	}
	wantRule := map[string]string{"blocked": f.denyURL, "viavar": f.denyURL, "evil": `deny[1] {"command":["sh","-c","*","*","*"]}`, "proj": `"project_servers": false`, "ok": "", "fine": "", "corp": ""}
	for id, rule := range wantRule {
		i, ok := byID[id]
		if !ok {
			t.Errorf("list lacks %s:\n%s", id, out)
			continue
		}
		r := rows[i]
		switch {
		case rule == "" && (r.Policy != nil || r.State == "blocked_by_policy"):
			t.Errorf("%s is blocked: %+v", id, r.Policy)
		case rule != "" && (r.State != "blocked_by_policy" || r.Policy == nil || r.Policy.Rule != rule || r.Policy.File != f.policy):
			t.Errorf("%s: state %q policy %+v, want blocked_by_policy by %s in %s", id, r.State, r.Policy, rule, f.policy)
		}
	}
	if c := rows[byID["corp"]]; c.Source != "managed" || !c.Enabled {
		t.Errorf("corp: source %q enabled %v, want managed and on whatever the user's config says", c.Source, c.Enabled)
	}
	if w := strings.Join(rows[byID["fine"]].Warnings, "\n"); !strings.Contains(w, `"trust": false`) {
		t.Errorf("fine's trust is not said to be ignored: %q", w)
	}
	out, errOut, _ = h.run(t, env, "mcp", "list")
	if !strings.Contains(out, "BLOCKED_BY_POLICY: "+f.denyURL) {
		t.Errorf("list table lacks the rule:\n%s", out)
	}
	// The test's own policy file is the user's to write: said, not obeyed less.
	if want := "managed policy " + f.policy + " is writable by you"; !strings.Contains(out+errOut, want) {
		t.Errorf("list does not warn %q:\n%s%s", want, out, errOut)
	}

	// Connecting: the blocked ones are never contacted nor started.
	out, errOut, _ = h.run(t, env, "mcp", "list", "--status")
	for _, want := range []string{"blocked_by_policy: " + f.denyURL, "ready ("} {
		if !strings.Contains(out, want) {
			t.Errorf("list --status lacks %q:\n%s%s", want, out, errOut)
		}
	}
	if n := f.lb.count("/blocked"); n != 0 {
		t.Errorf("the blocked URL got %d requests", n)
	}
	if n := f.lb.count("/ok/mcp"); n == 0 {
		t.Error("the allowed URL got no request: the policy blocked more than it says")
	}
	if exists(f.marker) {
		t.Error("the denied command line ran")
	}
	out, _, code = h.run(t, env, "mcp", "get", "blocked")
	if code != 4 || !strings.Contains(out, "blocked_by_policy") || !strings.Contains(out, f.denyURL) || !strings.Contains(out, f.policy) {
		t.Errorf("get blocked: code %d\n%s", code, out)
	}
	if out, errOut, code := h.run(t, env, "mcp", "test", "blocked", "evil"); code != 4 || strings.Count(out, "blocked_by_policy: ") != 2 {
		t.Errorf("test blocked evil: code %d\n%s%s", code, out, errOut)
	}
	if out, _, code := h.run(t, env, "mcp", "get", "corp"); code != 0 || !strings.Contains(out, "state:") || !strings.Contains(out, "ready") {
		t.Errorf("get corp: code %d\n%s", code, out)
	}
	for _, verb := range []string{"remove", "disable"} {
		if _, errOut, code := h.run(t, env, "mcp", verb, "corp"); code != 4 || !strings.Contains(errOut, "provided by the organization") || !strings.Contains(errOut, f.policy) {
			t.Errorf("%s corp: code %d\n%s", verb, code, errOut)
		}
	}

	// Registry-only and sandbox-required: every user server is blocked by
	// user_servers; the organization's stdio server, whose sandbox is off,
	// by sandbox_required; its http one runs.
	strict := filepath.Join(filepath.Dir(h.dir), "strict.json")
	writeJSONFile(t, strict, map[string]any{
		"user_servers": "registry_only", "sandbox_required": true,
		"servers": map[string]any{"corp": map[string]any{"command": h.bin, "args": []string{"demo-stdio-server"}, "sandbox": false}, "remote": map[string]any{"url": f.lb.URL + "/ok/remote"}},
	})
	out, errOut, _ = h.run(t, []string{"MCP_HOST_MANAGED_POLICY=" + strict}, "mcp", "list", "--json")
	rows = nil // Unmarshal would keep fields the new rows lack
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("list --json: %v\n%s%s", err, out, errOut)
	}
	for _, r := range rows {
		want := `"user_servers": "registry_only"`
		switch r.ID {
		case "corp":
			want = `"sandbox_required": true`
		case "remote":
			want = ""
		}
		if got := ""; r.Policy != nil {
			got = r.Policy.Rule
			if got != want {
				t.Errorf("%s under registry_only+sandbox_required: blocked by %q, want %q", r.ID, got, want)
			}
		} else if want != "" {
			t.Errorf("%s under registry_only+sandbox_required: not blocked, want %q", r.ID, want)
		}
	}
	if _, errOut, code := h.run(t, []string{"MCP_HOST_MANAGED_POLICY=" + strict}, "mcp", "add", "mine", f.lb.URL+"/ok/mine"); code != 4 || !strings.Contains(errOut, "registry_only") {
		t.Errorf("add under registry_only: code %d\n%s", code, errOut)
	}

	// A policy file MCP_HOST_MANAGED_POLICY names and that is missing
	// fails closed too (it was asked for).
	out, _, _ = h.run(t, []string{"MCP_HOST_MANAGED_POLICY=" + filepath.Join(filepath.Dir(h.dir), "none.json")}, "mcp", "list", "--json")
	if !strings.Contains(out, "blocked_by_policy") {
		t.Errorf("a named policy file that does not exist does not fail closed:\n%s", out)
	}

	// A malformed policy fails closed, naming the file and position.
	if err := os.WriteFile(f.policy, []byte("{\n  \"deny\": [\n    {\"url\": \"http://x\"},,\n  ]\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ = h.run(t, env, "mcp", "list", "--json")
	rows = nil
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	where := fmt.Sprintf("managed policy %s:3:25: ", f.policy)
	for _, r := range rows {
		if r.State != "blocked_by_policy" || r.Policy == nil || !strings.Contains(r.Policy.Reason, where) {
			t.Errorf("%s with a malformed policy: %q %+v, want blocked naming %q", r.ID, r.State, r.Policy, where)
		}
	}
	if !strings.Contains(errOut, where) {
		t.Errorf("list does not warn about the malformed policy:\n%s", errOut)
	}
	if _, errOut, code := h.run(t, env, "mcp", "add", "new", f.lb.URL+"/ok/new"); code != 4 || !strings.Contains(errOut, where) {
		t.Errorf("add with a malformed policy: code %d\n%s", code, errOut)
	}
}

// TestPolicyServe: host serve over pipes shows blocked_by_policy with the
// rule in mcp.list, mcp.get and mcp.status, never contacts the blocked
// server, refuses to disable the forced one, and fails closed when the
// policy file is broken while it runs.
func TestPolicyServe(t *testing.T) {
	bin := buildHost(t)
	dir := t.TempDir()
	f := newPolicyFixture(t, bin, dir)
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": f.userServers(bin)}})
	h := startServe(t, append([]string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"}, f.env()...))
	ctx := ctxT(t, 2*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"}}); err != nil {
		t.Fatal(err)
	}
	states := func() map[string]protocol.ServerStatus {
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]protocol.ServerStatus{}
		for _, s := range l.Servers {
			out[s.ID] = s
		}
		return out
	}
	waitFor(t, 60*time.Second, "fine and corp ready, ok in error", func() bool {
		st := states()
		return st["fine"].State == protocol.StateReady && st["corp"].State == protocol.StateReady && st["ok"].State == protocol.StateError
	})
	st := states()
	for id, rule := range map[string]string{"blocked": f.denyURL, "viavar": f.denyURL, "evil": `deny[1] {"command":["sh","-c","*","*","*"]}`} {
		s := st[id]
		if s.State != protocol.StateBlockedByPolicy || s.Policy == nil || s.Policy.Rule != rule || s.Policy.File != f.policy || !strings.Contains(s.LastError, rule) {
			t.Errorf("mcp.list %s: %+v %+v", id, s, s.Policy)
		}
	}
	if st["corp"].Source != "managed" || !st["corp"].Enabled {
		t.Errorf("corp: %+v", st["corp"])
	}
	g, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "blocked"})
	if err != nil || g.Server.Policy == nil || g.Server.Policy.Rule != f.denyURL || g.Server.URL != f.lb.URL+"/blocked/mcp" {
		t.Errorf("mcp.get blocked: %+v %v", g, err)
	}
	if _, err := h.rt.MCPDisable(ctx, &protocol.ServerParams{ID: "corp"}); err == nil || !strings.Contains(err.Error(), "provided by the organization") {
		t.Errorf("mcp.disable corp: %v", err)
	}
	if _, err := h.rt.MCPReconnect(ctx, &protocol.ServerParams{ID: "blocked"}); err != nil {
		t.Errorf("mcp.reconnect blocked: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	if n := f.lb.count("/blocked"); n != 0 {
		t.Errorf("the blocked URL got %d requests", n)
	}
	if f.lb.count("/ok/") == 0 {
		t.Error("the allowed URL got no request")
	}
	if exists(f.marker) {
		t.Error("the denied command line ran")
	}

	// The policy file breaks while host serve runs: it fails closed.
	if err := os.WriteFile(f.policy, []byte(`{"deny": [], "alow": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	where := fmt.Sprintf("managed policy %s:1:14: unknown key \"alow\"", f.policy)
	waitFor(t, 30*time.Second, "every server blocked by the broken policy", func() bool {
		for _, s := range states() {
			if s.State != protocol.StateBlockedByPolicy || s.Policy == nil || !strings.Contains(s.Policy.Reason, where) {
				return false
			}
		}
		return true
	})
	waitFor(t, 10*time.Second, "an mcp.status notification saying blocked_by_policy with the file's error", func() bool {
		h.ui.mu.Lock()
		defer h.ui.mu.Unlock()
		for _, s := range h.ui.statuses {
			if s.Server.ID == "blocked" && s.Server.State == protocol.StateBlockedByPolicy && s.Server.Policy != nil && strings.Contains(s.Server.Policy.Reason, where) {
				return true
			}
		}
		return false
	})
}

// TestPolicyChat: host chat's /mcp shows blocked_by_policy and the rule.
func TestPolicyChat(t *testing.T) {
	requireTmux(t)
	bin := buildHost(t)
	dir := t.TempDir()
	f := newPolicyFixture(t, bin, dir)
	global := filepath.Join(dir, "global", "config.json")
	writeJSONFile(t, global, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"blocked": map[string]any{"url": f.lb.URL + "/blocked/mcp"},
		"fine":    map[string]any{"command": bin, "args": []string{"demo-stdio-server"}},
	}}})
	c := startChatWith(t, chatLaunch{session: "mcp-host-policy-" + filepath.Base(dir), bin: bin, dir: dir, config: global, width: 200, height: 45,
		env: []string{"MCP_HOST_MANAGED_POLICY=" + f.policy}})
	c.waitText("1 blocked_by_policy")
	c.typeLine("/mcp")
	screen := c.waitText("blocked: blocked_by_policy: " + f.denyURL)
	for _, want := range []string{"blocked_by_policy", f.policy} {
		if !strings.Contains(screen, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, screen)
		}
	}
	c.typeLine("/mcp blocked")
	c.waitText("policy rule:")
	if n := f.lb.count("/blocked"); n != 0 {
		t.Errorf("the blocked URL got %d requests", n)
	}
}
