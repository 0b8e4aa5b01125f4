package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/internal/atomicfile"
)

// killCase is one state file's kill matrix: a fresh world per kill
// point, a command whose write is killed there, and the host started
// again over what the kill left.
type killCase struct {
	kind  string
	match string // a part of the state file's path
	// prepare makes a fresh world and does the writes acknowledged before
	// the one that dies.
	prepare func(t *testing.T) *world
	// write runs the command whose write dies (env arms the fault) and
	// returns whether it was killed, how many of its own writes it
	// acknowledged first (printed success), and its stderr (the trace).
	write func(t *testing.T, w *world, env []string) (killed bool, acked int, stderr string)
	// check starts the host again and returns the acknowledged writes it
	// lost, whether it failed to start or to write again, and whether the
	// write that died (the n-th) is there whole.
	check func(t *testing.T, w *world, n, acked int) (lost int, unstartable bool, landed bool)
}

// runKillMatrix counts the kill points with a traced run, then kills the
// command at each one and checks what the host finds: it starts, every
// acknowledged write is there, and the write that died is whole and
// there only when it died after its rename (at syncdir).
func runKillMatrix(t *testing.T, ta *tally, c killCase) {
	t.Helper()
	w := c.prepare(t)
	killed, _, trace := c.write(t, w, traceEnv)
	if killed {
		t.Fatalf("the traced run was killed:\n%s", trace)
	}
	points := killPoints(t, trace, c.match)
	t.Logf("%s: %d kill points: %v", c.kind, len(points), points)
	for _, p := range points {
		t.Run(p.String(), func(t *testing.T) {
			w := c.prepare(t)
			killed, acked, out := c.write(t, w, killAt(p, c.match))
			if !killed {
				t.Fatalf("the command was not killed at %s:\n%s", p, out)
			}
			left := temps(t, w.home)
			lost, unstartable, landed := c.check(t, w, p.n, acked)
			if lost != 0 || unstartable {
				t.Errorf("after a kill at %s: %d acknowledged writes lost, unstartable %v", p, lost, unstartable)
			}
			if want := p.step == atomicfile.StepSyncDir; landed != want {
				t.Errorf("after a kill at %s the write that died is there: %v, want %v (new only once renamed)", p, landed, want)
			}
			ta.add(c.kind, lost, map[bool]int{true: 1}[unstartable], landed, left)
		})
	}
}

// TestKillNineMatrix is issue 35 item 3, "kill -9 at any write", with the
// real host binary: every state file the CLI or host serve writes, killed
// at every step of every write the command makes (MCP_HOST_FAULT), then
// the host started again. It prints the table docs/DURABILITY.md keeps.
func TestKillNineMatrix(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the kill is told apart by its signal, a Unix notion")
	}
	t.Parallel() // waits on the hosts it starts (package doc: Parallel tests)
	var ta tally
	kinds := []string{"config.json (host mcp add)", "approvals.json (host mcp approve)", "permissions.json (always allow in host serve)",
		"mcp-auth.json (host mcp login)", "catalogs/ (kept catalog in host serve)", "registry/ (host mcp search cache)"}
	lazy := buildLazyStdio(t, t.TempDir())
	t.Run("kinds", func(t *testing.T) {
		t.Run("config", func(t *testing.T) { t.Parallel(); runKillMatrix(t, &ta, configKill(kinds[0])) })
		t.Run("approvals", func(t *testing.T) { t.Parallel(); runKillMatrix(t, &ta, approvalKill(kinds[1])) })
		t.Run("permissions", func(t *testing.T) { t.Parallel(); runKillMatrix(t, &ta, permissionKill(kinds[2], lazy)) })
		t.Run("tokens", func(t *testing.T) { t.Parallel(); runKillMatrix(t, &ta, tokenKill(t, kinds[3])) })
		t.Run("catalog", func(t *testing.T) { t.Parallel(); runKillMatrix(t, &ta, catalogKill(kinds[4], lazy)) })
		t.Run("registry", func(t *testing.T) { t.Parallel(); runKillMatrix(t, &ta, registryKill(t, kinds[5])) })
	})
	t.Logf("kill -9 matrix:\n%s", ta.table(kinds))
}

// listJSON is `host mcp list --json`: the servers by id, or an error
// when the host does not start cleanly.
func listJSON(t *testing.T, w *world) (map[string]jsonListed, bool) {
	t.Helper()
	r := w.run(t, nil, "mcp", "list", "--json")
	var rows []jsonListed
	if r.code() != 0 || json.Unmarshal([]byte(r.out), &rows) != nil {
		t.Errorf("host mcp list --json: exit %d\n%s%s", r.code(), r.out, r.errOut)
		return nil, false
	}
	out := map[string]jsonListed{}
	for _, row := range rows {
		out[row.ID] = row
	}
	return out, true
}

type jsonListed struct {
	ID       string `json:"id"`
	URL      string `json:"url"`
	Approval string `json:"approval"`
	Error    string `json:"error"`
}

func configKill(kind string) killCase {
	return killCase{kind: kind, match: "config.json",
		prepare: func(t *testing.T) *world {
			w := newWorld(t)
			w.mustRun(t, "mcp", "add", "a", "http://127.0.0.1:9/a")
			return w
		},
		write: func(t *testing.T, w *world, env []string) (bool, int, string) {
			before := readOr(t, w.global())
			r := w.run(t, env, "mcp", "add", "b", "http://127.0.0.1:9/b")
			if r.killed() {
				if after := readOr(t, w.global()); !strings.Contains(string(after), `"b"`) && string(after) != string(before) {
					t.Errorf("the config is neither the old one nor the new one:\n%s", after)
				}
			}
			return r.killed(), 0, r.errOut
		},
		check: func(t *testing.T, w *world, _, _ int) (int, bool, bool) {
			servers, ok := listJSON(t, w)
			lost := map[bool]int{true: 1}[servers["a"].URL != "http://127.0.0.1:9/a"]
			b, landed := servers["b"]
			if landed && b.URL != "http://127.0.0.1:9/b" {
				t.Errorf("server b is there but not whole: %+v", b)
			}
			// The next edit works (nothing the kill left blocks it) and
			// removes the kill's temporary file once it is old.
			r := sweptBy(t, w.configDir(), func() ran { return w.run(t, nil, "mcp", "add", "c", "http://127.0.0.1:9/c") })
			return lost, !ok || r.code() != 0, landed
		}}
}

func approvalKill(kind string) killCase {
	return killCase{kind: kind, match: "approvals.json",
		prepare: func(t *testing.T) *world {
			w := newWorld(t)
			writeJSONFile(t, filepath.Join(w.project, ".mcp-host", "config.json"), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
				"p1": map[string]any{"command": "/bin/true", "args": []string{"one"}},
				"p2": map[string]any{"command": "/bin/true", "args": []string{"two"}},
			}}})
			w.mustRun(t, "mcp", "approve", "p1")
			return w
		},
		write: func(t *testing.T, w *world, env []string) (bool, int, string) {
			r := w.run(t, env, "mcp", "approve", "p2")
			return r.killed(), 0, r.errOut
		},
		check: func(t *testing.T, w *world, _, _ int) (int, bool, bool) {
			servers, ok := listJSON(t, w)
			lost := map[bool]int{true: 1}[servers["p1"].Approval != "approved"]
			r := sweptBy(t, w.configDir(), func() ran { return w.run(t, nil, "mcp", "deny", "p1") })
			return lost, !ok || r.code() != 0, servers["p2"].Approval == "approved"
		}}
}

// tokenKill logs in to server a (acknowledged), then to b, which dies.
// The worlds are copies of one prepared once: the login of a takes a
// round of OAuth.
func tokenKill(t *testing.T, kind string) killCase {
	demo, err := servers.Start(context.Background(), servers.Options{AutoApprove: true, TokenLifetime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { demo.Close() })
	var template *world
	return killCase{kind: kind, match: "mcp-auth.json",
		prepare: func(t *testing.T) *world {
			if template == nil {
				template = newWorld(t)
				writeJSONFile(t, template.global(), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
					"a": map[string]any{"transport": "http", "url": demo.MCPURL},
					"b": map[string]any{"transport": "http", "url": demo.MCPURL},
				}}})
				if r := template.loginRun(t, "a", nil); r.code() != 0 || !strings.Contains(r.out, "logged in") {
					t.Fatalf("login a: exit %d\n%s%s", r.code(), r.out, r.errOut)
				}
			}
			w := newWorld(t)
			if err := os.CopyFS(w.configDir(), os.DirFS(template.configDir())); err != nil {
				t.Fatal(err)
			}
			return w
		},
		write: func(t *testing.T, w *world, env []string) (bool, int, string) {
			r := w.loginRun(t, "b", env)
			return r.killed(), 0, r.out + r.errOut
		},
		check: func(t *testing.T, w *world, _, _ int) (int, bool, bool) {
			a := w.run(t, nil, "mcp", "get", "a")
			lost := map[bool]int{true: 1}[a.code() != 0 || !strings.Contains(a.out, "token valid until")]
			b := w.run(t, nil, "mcp", "get", "b")
			bad := (b.code() != 0 && b.code() != exitAuthRequiredCode) || strings.Contains(a.errOut+b.errOut, "token file")
			if bad || lost != 0 {
				t.Logf("host mcp get a: exit %d\n%s%s\nhost mcp get b: exit %d\n%s%s", a.code(), a.out, a.errOut, b.code(), b.out, b.errOut)
			}
			// The login's one write keeps b's registration and tokens together.
			rec := tokenRecords(t, filepath.Join(w.configDir(), "mcp-auth.json"))["b"]
			if (rec.Client != nil) != (rec.Token != nil) {
				t.Errorf("b's record is half there: %+v", rec)
			}
			// A logout writes the file again: the kill's temporary file,
			// which may hold tokens, goes with it once it is old.
			if r := sweptBy(t, w.configDir(), func() ran { return w.run(t, nil, "mcp", "logout", "a") }); r.code() != 0 {
				t.Errorf("logout a: exit %d\n%s%s", r.code(), r.out, r.errOut)
				bad = true
			}
			return lost, bad, rec.Token != nil
		}}
}

// tokenRecord is what the token file keeps of an account.
type tokenRecord struct {
	Client *json.RawMessage `json:"client"`
	Token  *json.RawMessage `json:"token"`
}

// tokenRecords reads the token file: the records by server id.
func tokenRecords(t *testing.T, path string) map[string]tokenRecord {
	t.Helper()
	var doc struct {
		Accounts map[string]tokenRecord `json:"accounts"`
	}
	if b := readOr(t, path); b != nil {
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Errorf("token file: %v", err)
		}
	}
	out := map[string]tokenRecord{}
	for account, rec := range doc.Accounts {
		id, _, _ := strings.Cut(account, "|")
		out[id] = rec
	}
	return out
}
