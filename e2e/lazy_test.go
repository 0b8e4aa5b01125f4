package e2e_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// lazyEnv is one user's machine for the tests of servers that start on
// first use: a config with the stdio server "lz" (e2e/internal/lazystdio),
// a cache and a permissions file shared by the host serve runs of a test.
type lazyEnv struct {
	dir, bin, tools, starts string
}

func newLazyEnv(t *testing.T) *lazyEnv {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "lazystdio")
	cmd := exec.Command("go", "build", "-o", bin, "./e2e/internal/lazystdio")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/internal/lazystdio: %v\n%s", err, out)
	}
	return &lazyEnv{dir: dir, bin: bin, tools: filepath.Join(dir, "tools.txt"), starts: filepath.Join(dir, "starts.txt")}
}

// offer makes the server offer these tools ("name description") from its
// next start.
func (l *lazyEnv) offer(t *testing.T, lines ...string) {
	t.Helper()
	if err := os.WriteFile(l.tools, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// pids are the server's processes started so far, in order.
func (l *lazyEnv) pids(t *testing.T) []int {
	t.Helper()
	b, err := os.ReadFile(l.starts)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// serve starts host serve over the shared config, cache and permissions.
func (l *lazyEnv) serve(t *testing.T, server map[string]any, args ...string) (*servedHost, context.Context) {
	t.Helper()
	// Unconfined: the server records its starts in the test's directory.
	def := map[string]any{"command": l.bin, "args": []string{"-tools", l.tools, "-starts", l.starts}, "sandbox": false}
	for k, v := range server {
		def[k] = v
	}
	config := filepath.Join(l.dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"lz": def}}})
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "HOME=" + l.dir, "MCP_HOST_CACHE_DIR=" + filepath.Join(l.dir, "cache")}
	h := startServe(t, env, append([]string{"--permissions", filepath.Join(l.dir, "permissions.json")}, args...)...)
	ctx := ctxT(t, 3*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatal(err)
	}
	return h, ctx
}

// stop ends a host serve run and waits for it.
func stopServe(t *testing.T, h *servedHost) {
	t.Helper()
	h.stdin.Close()
	select {
	case err := <-h.exited:
		h.exited <- err
	case <-time.After(20 * time.Second):
		t.Fatal("host serve did not exit")
	}
}

// lzStatus reads the status from mcp.list, which never starts a server.
func lzStatus(t *testing.T, h *servedHost, ctx context.Context) protocol.ServerStatus {
	t.Helper()
	res, err := h.rt.MCPList(ctx, &protocol.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Servers {
		if st.ID == "lz" {
			return st
		}
	}
	t.Fatal("no server lz")
	return protocol.ServerStatus{}
}

func waitLZ(t *testing.T, h *servedHost, ctx context.Context, state string) protocol.ServerStatus {
	t.Helper()
	var st protocol.ServerStatus
	waitFor(t, time.Minute, "lz "+state, func() bool {
		st = lzStatus(t, h, ctx)
		return st.State == state
	})
	return st
}

// firstRun starts the server once with an empty cache (it has no catalog
// to offer, so it starts at once) and ends the host.
func (l *lazyEnv) firstRun(t *testing.T, args ...string) {
	t.Helper()
	h, ctx := l.serve(t, nil, args...)
	if st := waitLZ(t, h, ctx, protocol.StateReady); st.Cached {
		t.Fatalf("first run: %+v", st)
	}
	stopServe(t, h)
}

func toolText(res *protocol.ToolCallResult) string {
	if res == nil || len(res.Result.Content) == 0 {
		return ""
	}
	return res.Result.Content[0].Text
}

// A stdio server with a kept catalog is idle when host serve starts (no
// process), its tools are offered; a call starts it; idle_timeout_ms
// unused stops its process, and the next call starts it again.
func TestLazyServerIdleStopAndRestart(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	l := newLazyEnv(t)
	l.offer(t, "alpha says alpha", "beta says beta")
	l.firstRun(t)
	h, ctx := l.serve(t, map[string]any{"idle_timeout_ms": 1500}, "--allow", "lz/*")
	st := lzStatus(t, h, ctx)
	if st.State != protocol.StateIdle || !st.Cached || st.Tools != 2 || st.ServerName != "lazystdio" {
		t.Fatalf("status at start: %+v, want idle with 2 cached tools", st)
	}
	if n := len(l.pids(t)); n != 1 {
		t.Fatalf("%d server starts before any use, want only the first run's", n)
	}
	tl, err := h.rt.ToolsList(ctx, &protocol.ToolsListParams{})
	if err != nil || len(tl.Tools) < 2 {
		t.Fatalf("tools.list: %v %+v", err, tl)
	}
	res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: "alpha"})
	pids := l.pids(t)
	if err != nil || len(pids) != 2 || toolText(res) != "alpha ran in "+strconv.Itoa(pids[1]) {
		t.Fatalf("first call: %q %v (starts %v)", toolText(res), err, pids)
	}
	waitLZ(t, h, ctx, protocol.StateIdle)
	waitFor(t, 15*time.Second, "the idle server's process to exit", func() bool { return !running(pids[1]) })
	res, err = h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: "beta"})
	pids = l.pids(t)
	if err != nil || len(pids) != 3 || toolText(res) != "beta ran in "+strconv.Itoa(pids[2]) {
		t.Fatalf("call after the idle stop: %q %v (starts %v)", toolText(res), err, pids)
	}
}

// A tool whose definition changed while its server was stopped is asked
// about again at the gate, though the user had answered "always" for the
// definition kept in the catalog.
func TestLazyToolChangedWhileIdleIsAskedAgain(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	l := newLazyEnv(t)
	l.offer(t, "alpha says alpha")
	h, ctx := l.serve(t, nil)
	waitLZ(t, h, ctx, protocol.StateReady)
	h.ui.setAnswer(func(context.Context, *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		return &protocol.ConfirmResult{Answer: protocol.AnswerAlwaysTool}, nil
	})
	if _, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: "alpha"}); err != nil {
		t.Fatal(err)
	}
	stopServe(t, h)

	// Unchanged: remembered, not asked.
	h, ctx = l.serve(t, nil)
	if st := lzStatus(t, h, ctx); st.State != protocol.StateIdle {
		t.Fatalf("%+v", st)
	}
	if res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: "alpha"}); err != nil || res.DecidedBy == "user" || len(h.ui.confirmsSeen()) != 0 {
		t.Fatalf("unchanged tool: %+v %v, %d confirms", res, err, len(h.ui.confirmsSeen()))
	}
	stopServe(t, h)

	l.offer(t, "alpha now deletes everything")
	h, ctx = l.serve(t, nil)
	if st := lzStatus(t, h, ctx); st.State != protocol.StateIdle || !st.Cached {
		t.Fatalf("%+v", st)
	}
	h.ui.setAnswer(func(context.Context, *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		return &protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}, nil
	})
	res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: "alpha"})
	if err != nil || res.DecidedBy != "user" || len(h.ui.confirmsSeen()) != 1 {
		t.Fatalf("changed tool: %+v %v, %d confirms, want asked again", res, err, len(h.ui.confirmsSeen()))
	}
}

// A tool the model was offered from the kept catalog that the started
// server no longer has: that call fails naming server and tool, and the
// next run's catalog is the live one.
func TestLazyToolDisappearedWhileIdle(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	l := newLazyEnv(t)
	l.offer(t, "alpha says alpha", "beta says beta")
	l.firstRun(t)
	l.offer(t, "alpha says alpha")
	script := filepath.Join(l.dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		callStep(call("lz/beta", map[string]any{})),
		{"when_result_contains": `no longer offers tool "beta"`, "text": "gone"},
		{"text": "second run"},
	})
	log := filepath.Join(l.dir, "model.jsonl")
	h, ctx := l.serve(t, nil, "--allow", "lz/*", "--script", script, "--script-log", log)
	if _, st := runToEnd(t, h, ctx, "call beta"); st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	calls := readScriptLog(t, log)
	if len(calls) != 2 || !hasTool(calls[0].Tools, "beta") {
		t.Fatalf("model calls %+v, want beta offered from the kept catalog", calls)
	}
	if r := strings.Join(calls[1].Results, "\n"); !strings.Contains(r, `server "lz" no longer offers tool "beta"`) {
		t.Errorf("the model got %q, want the call refused naming server and tool", r)
	}
	if _, st := runToEnd(t, h, ctx, "again"); st.Status != protocol.RunCompleted {
		t.Fatalf("second run: %+v", st)
	}
	calls = readScriptLog(t, log)
	if len(calls) != 3 || hasTool(calls[2].Tools, "beta") || !hasTool(calls[2].Tools, "alpha") {
		t.Fatalf("second run offered %v, want alpha and no beta", calls[len(calls)-1].Tools)
	}
}

func hasTool(names []string, tool string) bool {
	for _, n := range names {
		if strings.Contains(n, "_"+tool+"_") || strings.HasSuffix(n, "_"+tool) {
			return true
		}
	}
	return false
}

// A server that fails to start on first use: the call's error says why,
// the status is error, and the kept catalog is still offered; nothing
// retries in the background.
func TestLazyServerFailsToStartOnFirstCall(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	l := newLazyEnv(t)
	l.offer(t, "alpha says alpha")
	l.firstRun(t)
	l.offer(t, "FAIL")
	h, ctx := l.serve(t, nil, "--allow", "lz/*")
	if st := lzStatus(t, h, ctx); st.State != protocol.StateIdle {
		t.Fatalf("%+v", st)
	}
	_, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lz", Tool: "alpha"})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeNotReady || !strings.Contains(err.Error(), `server "lz" is error`) {
		t.Fatalf("call: %v, want not ready naming the server", err)
	}
	st := lzStatus(t, h, ctx)
	if st.State != protocol.StateError || !st.Cached || st.Tools != 1 || st.LastError == "" {
		t.Fatalf("status after the failed start: %+v", st)
	}
	tl, err := h.rt.ToolsList(ctx, &protocol.ToolsListParams{Server: "lz"})
	if err != nil || len(tl.Tools) != 1 {
		t.Fatalf("catalog after the failed start: %v %+v", err, tl)
	}
	n := len(l.pids(t))
	time.Sleep(2 * time.Second) // a retry loop would start it again meanwhile
	if again := len(l.pids(t)); again != n {
		t.Errorf("%d starts in the background after a failed start on use, want 0", again-n)
	}
}

// A UI subscribed to a resource of a lazy server keeps it running past
// its idle timeout; unsubscribed, it stops.
func TestLazyServerKeptAwakeBySubscription(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	l := newLazyEnv(t)
	l.offer(t, "alpha says alpha")
	l.firstRun(t)
	h, ctx := l.serve(t, map[string]any{"idle_timeout_ms": 500})
	prim := protocol.NewPrimitivesCaller(h.conn)
	if _, err := prim.ResourcesSubscribe(ctx, &protocol.ResourceParams{Server: "lz", URI: "lazy://watched"}); err != nil {
		t.Fatalf("resources.subscribe: %v", err)
	}
	if st := lzStatus(t, h, ctx); st.State != protocol.StateReady {
		t.Fatalf("subscribing did not start the server: %+v", st)
	}
	time.Sleep(2 * time.Second) // four idle timeouts
	if st := lzStatus(t, h, ctx); st.State != protocol.StateReady {
		t.Fatalf("a watched server stopped: %+v", st)
	}
	if _, err := prim.ResourcesUnsubscribe(ctx, &protocol.ResourceParams{Server: "lz", URI: "lazy://watched"}); err != nil {
		t.Fatal(err)
	}
	waitLZ(t, h, ctx, protocol.StateIdle)
}

// A kept catalog is a file the host reads back: one that is not a valid
// catalog (here nested millions deep, then cut short) is a miss, and the
// server starts at once to list its tools instead of offering it.
func TestLazyPlantedCatalogIsAMiss(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	l := newLazyEnv(t)
	l.offer(t, "alpha says alpha")
	l.firstRun(t)
	files, _ := filepath.Glob(filepath.Join(l.dir, "cache", "catalogs", "*.json"))
	if len(files) != 1 {
		t.Fatalf("catalog files %v, want one", files)
	}
	for name, planted := range map[string][]byte{
		"deep":      append([]byte(`{"key":"x","tools":[`), []byte(strings.Repeat("[", 3_000_000))...),
		"truncated": []byte(`{"key":`),
	} {
		if err := os.WriteFile(files[0], planted, 0o600); err != nil {
			t.Fatal(err)
		}
		h, ctx := l.serve(t, nil)
		if st := waitLZ(t, h, ctx, protocol.StateReady); st.Cached {
			t.Errorf("%s: %+v", name, st)
		}
		stopServe(t, h)
	}
}
