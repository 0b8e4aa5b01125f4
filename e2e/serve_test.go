package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/adapter"
)

// TestServeProtocol drives the built `host serve` as a UI would.
func TestServeProtocol(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	// The log is in a directory of its own, granted to the server's
	// sandbox: dir holds the host's config, which no server may write.
	logDir := filepath.Join(dir, "log")
	if err := os.Mkdir(logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	inLog := filepath.Join(logDir, "everything-stdin.jsonl")

	// A server that accepts the connection and never answers: it stays
	// "connecting" for the whole test.
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(hang); slow.Close() })

	// A protected server that waits for a login.
	demoEnv, err := servers.Start(context.Background(), servers.Options{AutoApprove: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { demoEnv.Close() })

	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": "sh",
			"args": append([]string{"-c", `tee "$0" | "$@"`, inLog}, append(everything, "stdio")...),
			// tee writes its log outside the server's cwd: grant it.
			"sandbox": map[string]any{"filesystem": map[string]any{"write": []string{logDir}}}},
		"slow":   map[string]any{"transport": "http", "url": slow.URL, "startup_timeout_ms": 600000},
		"broken": map[string]any{"transport": "stdio", "command": filepath.Join(dir, "no-such-command")},
		"notes":  map[string]any{"transport": "http", "url": demoEnv.MCPURL},
	}}})
	echo := adapter.PublicName("everything", "echo")
	long := adapter.PublicName("everything", "trigger-long-running-operation")
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, []map[string]any{
		{"calls": []map[string]any{{"name": echo, "args": map[string]any{"message": "one"}}}},
		{"text": "done one"},
		{"calls": []map[string]any{{"name": echo, "args": map[string]any{"message": "two"}}}},
		{"calls": []map[string]any{{"name": echo, "args": map[string]any{"message": "three"}}}},
		{"text": "the call timed out"},
		{"calls": []map[string]any{{"name": long, "args": map[string]any{"duration": 30, "steps": 30}}}},
		{"text": "never"},
	})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		"--script", script, "--confirm-timeout", "2s", "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, 2*time.Minute)

	// A request before initialize is refused.
	_, err = h.rt.MCPList(ctx, &protocol.Empty{})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeNotInitialized {
		t.Fatalf("mcp.list before initialize: %v", err)
	}
	init, err := h.rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e"},
		Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !init.Capabilities.Runs || len(init.Servers) != 4 {
		t.Fatalf("initialize = %+v", init)
	}

	t.Run("mcp.list answers while a server connects", func(t *testing.T) {
		waitFor(t, 60*time.Second, "everything ready, broken in error, notes waiting for a login", func() bool {
			l, err := h.rt.MCPList(ctx, &protocol.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			st := map[string]string{}
			for _, s := range l.Servers {
				st[s.ID] = s.State
			}
			if st["slow"] != protocol.StateConnecting {
				t.Fatalf("slow server: %s, want connecting", st["slow"])
			}
			return st["everything"] == protocol.StateReady && st["broken"] == protocol.StateError && st["notes"] == protocol.StateAuthRequired
		})
		g, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "broken"})
		if err != nil || !strings.Contains(g.Server.LastError, "no-such-command") {
			t.Errorf("mcp.get broken: %+v %v", g, err)
		}
		_, err = h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "nope"})
		if !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownServer {
			t.Errorf("mcp.get unknown: %v", err)
		}
	})

	t.Run("mcp.status notifications in order", func(t *testing.T) {
		// The sequence starts at initialize's snapshot: on a slow machine
		// (a -race host) the server may be ready before initialize is
		// answered, and then no notification needs to follow.
		var seq []string
		for _, s := range init.Servers {
			if s.ID == "everything" {
				seq = append(seq, s.State)
			}
		}
		h.ui.mu.Lock()
		for _, s := range h.ui.statuses {
			if s.Server.ID == "everything" {
				seq = append(seq, s.Server.State)
			}
		}
		h.ui.mu.Unlock()
		// The states must end in ready, with no state after ready but
		// ready (tool refreshes).
		i := strings.Index(strings.Join(seq, ","), protocol.StateReady)
		if i < 0 {
			t.Fatalf("everything never reported ready: %v", seq)
		}
		for _, s := range seq[len(strings.Split(strings.Join(seq, ",")[:i], ","))-1:] {
			if s != protocol.StateReady {
				t.Errorf("state after ready: %v", seq)
			}
		}
	})

	run := func(t *testing.T, prompt string) string {
		t.Helper()
		r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		return r.RunID
	}
	waitRun := func(t *testing.T, id string) protocol.RunStatusParams {
		t.Helper()
		var st protocol.RunStatusParams
		waitFor(t, 30*time.Second, "run "+id+" to end", func() bool {
			var ok bool
			st, ok = h.ui.finalRun(id)
			return ok
		})
		return st
	}

	t.Run("run with confirm allowed", func(t *testing.T) {
		h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
		id := run(t, "echo one")
		st := waitRun(t, id)
		if st.Status != protocol.RunCompleted || st.Text != "done one" {
			t.Fatalf("run: %+v", st)
		}
		var sawCall, sawResult bool
		for _, e := range h.ui.runEvents(id) {
			switch e.Type {
			case protocol.EventToolCall:
				sawCall = e.Call != nil && e.Call.Server == "everything" && e.Call.Tool == "echo"
			case protocol.EventToolResult:
				sawResult = e.Result != nil && len(e.Result.Content) > 0 && strings.Contains(e.Result.Content[0].Text, "one")
			}
		}
		if !sawCall || !sawResult {
			t.Errorf("events lack the call's origin or result: %+v", h.ui.runEvents(id))
		}
		h.ui.mu.Lock()
		c := h.ui.confirms[len(h.ui.confirms)-1]
		h.ui.mu.Unlock()
		if c.Kind != protocol.ConfirmKindToolCall || c.Tool == nil || c.Tool.Server != "everything" || c.Tool.Tool != "echo" || !strings.Contains(c.Tool.Arguments, "one") {
			t.Errorf("confirm request: %+v", c)
		}
	})

	t.Run("run with confirm denied", func(t *testing.T) {
		h.ui.setAnswer(answerWith(protocol.AnswerDeny))
		id := run(t, "echo two")
		st := waitRun(t, id)
		if st.Status != protocol.RunCompleted {
			t.Fatalf("run: %+v", st)
		}
		for _, e := range h.ui.runEvents(id) {
			if e.Type == protocol.EventToolResult && e.Result != nil && !e.Result.IsError {
				t.Errorf("denied call has a successful result: %+v", e)
			}
			if e.Type == protocol.EventPermission && e.Phase == "decided" && e.Decision != "deny" {
				t.Errorf("decision %q, want deny", e.Decision)
			}
		}
	})

	t.Run("a UI that never answers gets a deny, not a hang", func(t *testing.T) {
		h.ui.setAnswer(func(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
			<-ctx.Done() // never answers; the runtime gives up
			return nil, ctx.Err()
		})
		id := run(t, "echo three")
		st := waitRun(t, id)
		if st.Status != protocol.RunCompleted || st.Text != "the call timed out" {
			t.Fatalf("run: %+v", st)
		}
	})

	t.Run("run.cancel mid-tool", func(t *testing.T) {
		h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
		id := run(t, "wait")
		waitFor(t, 20*time.Second, "the long call to start", func() bool {
			for _, e := range h.ui.runEvents(id) {
				if e.Type == protocol.EventPermission && e.Decision == "allow" {
					return true
				}
			}
			return false
		})
		time.Sleep(time.Second)
		if _, err := h.rt.RunCancel(ctx, &protocol.RunCancelParams{RunID: id}); err != nil {
			t.Fatal(err)
		}
		if st := waitRun(t, id); st.Status != protocol.RunCancelled {
			t.Fatalf("run: %+v", st)
		}
		waitFor(t, 5*time.Second, "notifications/cancelled at the server", func() bool {
			b, _ := os.ReadFile(inLog)
			return bytes.Contains(b, []byte(`"notifications/cancelled"`))
		})
		_, err := h.rt.RunCancel(ctx, &protocol.RunCancelParams{RunID: id})
		if !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownRun {
			t.Errorf("second cancel: %v", err)
		}
	})

	t.Run("tool.call is gated", func(t *testing.T) {
		h.ui.setAnswer(answerWith(protocol.AnswerAllowOnce))
		res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "get-sum", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
		if err != nil || res.DecidedBy != "user" || !strings.Contains(res.Result.Content[0].Text, "5") {
			t.Fatalf("tool.call: %+v %v", res, err)
		}
		h.ui.setAnswer(answerWith(protocol.AnswerDeny))
		_, err = h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "get-sum", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
		if !errors.As(err, &perr) || perr.Code != protocol.CodeDenied {
			t.Fatalf("denied tool.call: %v", err)
		}
		_, err = h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "slow", Tool: "x"})
		if !errors.As(err, &perr) || perr.Code != protocol.CodeNotReady {
			t.Errorf("tool.call on a connecting server: %v", err)
		}
	})

	t.Run("malformed lines", func(t *testing.T) {
		// Raw writes; the Conn is idle now, so lines do not interleave.
		for _, line := range []string{"not json at all", `{"jsonrpc":"2.0","id":"m1","method":"mcp.get","params":{"id":7}}`,
			`{"jsonrpc":"2.0","id":"m2","method":"no.such"}`, `{"jsonrpc":"2.0","id":"m3","method":"tools.list","params":"x"}`,
			`{"jsonrpc":"2.0","id":"m4","method":"mcp.get","params":{"id":"` + strings.Repeat("x", 9<<20) + `"}}`} {
			if _, err := io.WriteString(h.stdin, line+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		// Still serving, and every bad line was answered.
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil || len(l.Servers) != 4 {
			t.Fatalf("after malformed input: %+v %v", l, err)
		}
		got := h.answers(t)
		want := map[string][]int64{
			`"m1"`: {protocol.CodeInvalidParams}, `"m2"`: {protocol.CodeMethodNotFound}, `"m3"`: {protocol.CodeInvalidParams},
			"null": {protocol.CodeParseError, protocol.CodeInvalidRequest},
		}
		for id, codes := range want {
			if fmt.Sprint(got[id]) != fmt.Sprint(codes) {
				t.Errorf("error answers for id %s: %v, want %v", id, got[id], codes)
			}
		}
	})

	t.Run("mcp.login: consent, the UI opens the URL, ready", func(t *testing.T) {
		h.ui.setAnswer(answerWith(protocol.AnswerYes))
		h.ui.mu.Lock()
		h.ui.openURL = func(u string) bool {
			resp, err := http.Get(u) // the demo server approves at once and redirects to the loopback callback
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		}
		h.ui.mu.Unlock()
		res, err := h.rt.MCPLogin(ctx, &protocol.LoginParams{ID: "notes"})
		if err != nil {
			t.Fatalf("mcp.login: %v", err)
		}
		if res.Server.Auth == nil || !res.Server.Auth.LoggedIn || !strings.Contains(res.Server.Auth.Storage, "mcp-auth.json") {
			t.Errorf("after login: %+v", res.Server)
		}
		h.ui.mu.Lock()
		c := h.ui.confirms[len(h.ui.confirms)-1]
		h.ui.mu.Unlock()
		if c.Kind != protocol.ConfirmKindLogin || c.Login == nil || c.Login.Issuer != demoEnv.IssuerURL {
			t.Errorf("login confirm: %+v", c)
		}
		if issuerHost := strings.TrimPrefix(strings.TrimSuffix(demoEnv.IssuerURL, "/"), "http://"); c.Login != nil && (c.Login.IssuerDisplay != demoEnv.IssuerURL || c.Login.IssuerHost != issuerHost) {
			t.Errorf("login confirm names the issuer as %q, host %q; want %q, %q", c.Login.IssuerDisplay, c.Login.IssuerHost, demoEnv.IssuerURL, issuerHost)
		}
		h.ui.mu.Lock()
		if n := len(h.ui.urls); n == 0 || h.ui.urls[n-1].Purpose != protocol.OpenURLLogin || h.ui.urls[n-1].DisplayHost == "" || h.ui.urls[n-1].DisplayURL == "" {
			t.Errorf("the login's ui.open_url.request lacks its display form: %+v", h.ui.urls)
		}
		h.ui.mu.Unlock()
		waitFor(t, 10*time.Second, "notes ready", func() bool {
			g, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "notes"})
			return err == nil && g.Server.State == protocol.StateReady && len(g.Server.ToolList) == 4
		})
	})

	t.Run("config edits apply without a restart", func(t *testing.T) {
		writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
			"everything": map[string]any{"transport": "stdio", "command": "sh",
				"args": append([]string{"-c", `tee "$0" | "$@"`, inLog}, append(everything, "stdio")...),
				// tee writes its log outside the server's cwd: grant it.
				"sandbox": map[string]any{"filesystem": map[string]any{"write": []string{logDir}}}},
			"slow":  map[string]any{"transport": "http", "url": slow.URL, "startup_timeout_ms": 600000},
			"notes": map[string]any{"transport": "http", "url": demoEnv.MCPURL},
			"added": map[string]any{"transport": "http", "url": "http://127.0.0.1:1/mcp"},
		}}})
		waitFor(t, 20*time.Second, "broken removed and added reported", func() bool {
			h.ui.mu.Lock()
			defer h.ui.mu.Unlock()
			var removed, added bool
			for _, st := range h.ui.statuses {
				removed = removed || st.Removed && st.Server.ID == "broken"
				added = added || st.Server.ID == "added"
			}
			return removed && added
		})
		l, err := h.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil || len(l.Servers) != 4 {
			t.Fatalf("after the edit: %+v %v", l, err)
		}
		for _, st := range l.Servers {
			if st.ID == "everything" && st.State != protocol.StateReady {
				t.Errorf("an unchanged server was disturbed: %+v", st)
			}
		}
	})

	t.Run("shutdown leaves no child process", func(t *testing.T) {
		start := time.Now()
		if _, err := h.rt.Shutdown(ctx, &protocol.Empty{}); err != nil {
			t.Fatal(err)
		}
		t.Logf("shutdown answered after %v", time.Since(start))
		defer func() { t.Logf("exited after %v", time.Since(start)) }()
		select {
		case err := <-h.exited:
			if err != nil {
				t.Errorf("host serve exited with %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("host serve did not exit after shutdown")
		}
		if pids := processesMentioning(inLog); len(pids) > 0 {
			t.Errorf("processes left behind: %v", pids)
		}
	})
}

// processesMentioning lists processes whose command line contains s.
func processesMentioning(s string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(s)) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s", e.Name(), bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	}
	return out
}
