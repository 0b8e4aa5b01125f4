package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// lazyServer is the config entry of a lazystdio server offering tools
// from the file tools (written here), unconfined (it records its starts
// in the test's directory).
func lazyServer(t *testing.T, bin, dir, name string, tools ...string) map[string]any {
	t.Helper()
	file := filepath.Join(dir, name+"-tools.txt")
	if err := os.WriteFile(file, []byte(strings.Join(tools, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": bin, "args": []string{"-tools", file, "-starts", filepath.Join(dir, name+"-starts.txt")}, "sandbox": false}
}

// serveWorld starts host serve in the world and initializes it with a UI
// that confirms; the error is initialize's (a fault may kill the host
// before it answers).
func serveWorld(t *testing.T, w *world, env []string) (*servedHost, error) {
	t.Helper()
	h := startServeIn(t, w.project, append(append([]string{}, w.env...), env...))
	ctx, cancel := ctxTimeout(time.Minute)
	defer cancel()
	_, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-durability"},
		Capabilities: protocol.UICapabilities{Confirm: true}})
	if err != nil {
		err = fmt.Errorf("initialize: %w", err) // the cleanup logs host serve's stderr
	}
	return h, err
}

// mustServe is serveWorld where initialize must succeed.
func mustServe(t *testing.T, w *world, env []string) *servedHost {
	t.Helper()
	h, err := serveWorld(t, w, env)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// status is a server's status from mcp.list, which never starts one; ok
// is false when host serve is gone.
func status(h *servedHost, id string) (protocol.ServerStatus, bool) {
	ctx, cancel := ctxTimeout(5 * time.Second)
	defer cancel()
	res, err := h.rt.MCPList(ctx, &protocol.Empty{})
	if err != nil {
		return protocol.ServerStatus{}, false
	}
	for _, st := range res.Servers {
		if st.ID == id {
			return st, true
		}
	}
	return protocol.ServerStatus{}, true
}

// waitState waits until server id is in state, or host serve is gone.
func waitState(t *testing.T, h *servedHost, id, state string) bool {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st, ok := status(h, id)
		if !ok {
			return false
		}
		if st.State == state {
			return true
		}
	}
	t.Fatalf("server %s not %s within 30 s", id, state)
	return false
}

// stopped ends host serve (a clean shutdown) and returns its stderr.
func stopped(t *testing.T, h *servedHost) string {
	t.Helper()
	stopServe(t, h)
	return h.stderr.String()
}

// permissionKill answers "always allow this tool" for t1, then t2, in one
// host serve; each answer is a write of permissions.json, and each is
// acknowledged when its tool call returns.
func permissionKill(kind, lazy string) killCase {
	return killCase{kind: kind, match: "permissions.json",
		prepare: func(t *testing.T) *world {
			w := newWorld(t)
			writeJSONFile(t, w.global(), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
				"lz": lazyServer(t, lazy, w.home, "lz", "t1 first", "t2 second"),
			}}})
			return w
		},
		write: func(t *testing.T, w *world, env []string) (bool, int, string) {
			h, err := serveWorld(t, w, env)
			h.ui.setAnswer(answerWith(protocol.AnswerAlwaysTool))
			acked := 0
			if err == nil && waitState(t, h, "lz", protocol.StateReady) {
				for _, tool := range []string{"t1", "t2"} {
					ctx, cancel := ctxTimeout(20 * time.Second)
					_, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: tool, Arguments: json.RawMessage(`{}`)})
					cancel()
					if err != nil {
						break
					}
					acked++
				}
			}
			if waitExit(h, 10*time.Second) {
				return killedBySIGKILL(h.cmd.ProcessState), acked, h.stderr.String()
			}
			return false, acked, stopped(t, h)
		},
		check: func(t *testing.T, w *world, n, acked int) (int, bool, bool) {
			r := w.run(t, nil, "mcp", "permissions", "--json")
			var listed protocol.PermissionsListResult
			if r.code() != 0 || json.Unmarshal([]byte(r.out), &listed) != nil {
				t.Errorf("host mcp permissions --json: exit %d\n%s%s", r.code(), r.out, r.errOut)
				return acked, true, false
			}
			has := map[string]bool{}
			for _, a := range listed.Answers {
				has[a.Tool] = a.Server == "lz" && a.Current
			}
			lost := 0
			for _, tool := range []string{"t1", "t2"}[:acked] {
				if !has[tool] {
					lost++
				}
			}
			// host serve starts over the file and uses the answers (lz
			// starts on this call: its catalog is kept).
			h, err := serveWorld(t, w, nil)
			unstartable := err != nil
			if acked > 0 && !unstartable {
				ctx, cancel := ctxTimeout(20 * time.Second)
				res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: "t1", Arguments: json.RawMessage(`{}`)})
				cancel()
				if err != nil || res.DecidedBy != "remembered answer" {
					t.Errorf("t1 after the restart: %+v %v", res, err)
					lost++
				}
			}
			stopped(t, h)
			return lost, unstartable, has[fmt.Sprintf("t%d", n)]
		}}
}

// catalogKill keeps the catalog of lz in a first host serve
// (acknowledged: that run ended with it kept), then adds lz2, whose first
// catalog a second host serve writes and dies in.
func catalogKill(kind, lazy string) killCase {
	return killCase{kind: kind, match: "catalogs",
		prepare: func(t *testing.T) *world {
			w := newWorld(t)
			lz := lazyServer(t, lazy, w.home, "lz", "t1 first", "t2 second")
			writeJSONFile(t, w.global(), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"lz": lz}}})
			h := mustServe(t, w, nil)
			waitState(t, h, "lz", protocol.StateReady)
			for deadline := time.Now().Add(10 * time.Second); catalogs(t, w) < 1; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("lz's catalog was not kept within 10 s")
				}
			}
			stopped(t, h)
			writeJSONFile(t, w.global(), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
				"lz": lz, "lz2": lazyServer(t, lazy, w.home, "lz2", "u1 only"),
			}}})
			return w
		},
		write: func(t *testing.T, w *world, env []string) (bool, int, string) {
			h, err := serveWorld(t, w, env)
			if err == nil && waitState(t, h, "lz2", protocol.StateReady) {
				// Kept right after the catalog is listed: lz2's file
				// appears beside lz's, or the kill comes first.
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && catalogs(t, w) < 2; {
					if waitExit(h, 20*time.Millisecond) {
						break
					}
				}
			}
			if waitExit(h, 5*time.Second) {
				return killedBySIGKILL(h.cmd.ProcessState), 0, h.stderr.String()
			}
			return false, 0, stopped(t, h)
		},
		check: func(t *testing.T, w *world, _, _ int) (int, bool, bool) {
			h, err := serveWorld(t, w, nil)
			defer stopped(t, h)
			if err != nil {
				t.Error(err)
				return 0, true, false
			}
			lz, ok := status(h, "lz")
			lost := map[bool]int{true: 1}[lz.State != protocol.StateIdle || !lz.Cached || lz.Tools != 2]
			lz2, _ := status(h, "lz2")
			landed := lz2.State == protocol.StateIdle && lz2.Cached && lz2.Tools == 1
			// It serves lz2, whatever was kept of it.
			h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
			ctx, cancel := ctxTimeout(30 * time.Second)
			defer cancel()
			_, err = h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz2", Tool: "u1", Arguments: json.RawMessage(`{}`)})
			if lost != 0 || err != nil {
				t.Logf("lz %+v\nlz2 %+v\ncall: %v", lz, lz2, err)
			}
			return lost, !ok || err != nil, landed
		}}
}

// catalogs counts the catalogs kept in the world's cache.
func catalogs(t *testing.T, w *world) int {
	t.Helper()
	des, _ := os.ReadDir(filepath.Join(w.cacheDir(), "catalogs"))
	n := 0
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".json") && !strings.HasPrefix(de.Name(), ".") {
			n++
		}
	}
	return n
}

// fakeRegistry answers the MCP Registry API's search with one server
// named after the query, or 503 once down is set.
func fakeRegistry(t *testing.T) (string, *atomic.Bool) {
	t.Helper()
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() || r.URL.Path != "/v0.1/servers" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		name := "io.github.e2e/" + r.URL.Query().Get("search")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"servers":[{"server":{"name":%q,"description":"a server","version":"1.0.0","remotes":[{"type":"streamable-http","url":"https://example.com/mcp"}]}}],"metadata":{"count":1}}`, name)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &down
}

// registryKill caches the search "alpha" (acknowledged: it printed it),
// then dies caching "beta"; the registry is down when the host starts
// again, so only the cache can answer.
func registryKill(t *testing.T, kind string) killCase {
	regs := map[*world]*atomic.Bool{}
	return killCase{kind: kind, match: filepath.Join("mcp-host", "registry"),
		prepare: func(t *testing.T) *world {
			w := newWorld(t)
			url, down := fakeRegistry(t)
			w.env = append(w.env, "MCP_HOST_REGISTRY="+url)
			regs[w] = down
			if r := w.mustRun(t, "mcp", "search", "alpha"); !strings.Contains(r.out, "io.github.e2e/alpha") || !strings.Contains(r.out, "fresh") {
				t.Fatalf("search alpha:\n%s", r.out)
			}
			return w
		},
		write: func(t *testing.T, w *world, env []string) (bool, int, string) {
			r := w.run(t, env, "mcp", "search", "beta")
			return r.killed(), 0, r.errOut
		},
		check: func(t *testing.T, w *world, _, _ int) (int, bool, bool) {
			regs[w].Store(true)
			alpha := w.run(t, nil, "mcp", "search", "alpha")
			lost := map[bool]int{true: 1}[alpha.code() != 0 || !strings.Contains(alpha.out, "io.github.e2e/alpha") || !strings.Contains(alpha.out, "cached")]
			beta := w.run(t, nil, "mcp", "search", "beta")
			landed := beta.code() == 0 && strings.Contains(beta.out, "io.github.e2e/beta")
			bad := !landed && (beta.code() != 1 || !strings.Contains(beta.errOut, "no answer of it is cached") && !strings.Contains(beta.errOut, "503"))
			if lost != 0 || bad {
				t.Logf("search alpha: exit %d\n%s%s\nsearch beta: exit %d\n%s%s", alpha.code(), alpha.out, alpha.errOut, beta.code(), beta.out, beta.errOut)
			}
			return lost, bad, landed
		}}
}
