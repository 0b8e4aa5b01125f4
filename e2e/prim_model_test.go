package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// buildPrimServer builds e2e/internal/primserver into the test's
// temporary directory.
func buildPrimServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "primserver")
	cmd := exec.Command("go", "build", "-o", bin, "./e2e/internal/primserver")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/internal/primserver: %v\n%s", err, out)
	}
	return bin
}

// modelCall is one line of host serve's --script-log.
type modelCall struct {
	System  []string `json:"system"`
	Tools   []string `json:"tools"`
	Results []string `json:"results"`
	// UserParts are the data parts of the last user message.
	UserParts []struct {
		Type     string `json:"type"`
		MIMEType string `json:"mime_type"`
		URI      string `json:"uri"`
		Bytes    int    `json:"bytes"`
		SHA256   string `json:"sha256"`
	} `json:"user_parts"`
}

func readScriptLog(t *testing.T, path string) []modelCall {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []modelCall
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c modelCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("script log: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// primHost starts host serve with the global config servers, a scripted
// model playing steps whose calls it logs, and waits for the ready ones.
func primHost(t *testing.T, servers map[string]any, steps []map[string]any, ready []string, env ...string) (*servedHost, string, context.Context) {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": servers}})
	script := filepath.Join(dir, "script.json")
	writeJSONFile(t, script, steps)
	log := filepath.Join(dir, "model.jsonl")
	h := startServe(t, append([]string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "HOME=" + dir}, env...),
		"--script", script, "--script-log", log, "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, 3*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ready {
		waitFor(t, 60*time.Second, id+" ready", func() bool {
			st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: id})
			return err == nil && st.Server.State == protocol.StateReady
		})
	}
	return h, log, ctx
}

// runToEnd starts a run and waits for its final status.
func runToEnd(t *testing.T, h *servedHost, ctx context.Context, prompt string) (string, protocol.RunStatusParams) {
	t.Helper()
	r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	var st protocol.RunStatusParams
	waitFor(t, 2*time.Minute, "run "+r.RunID+" to end", func() bool {
		var ok bool
		st, ok = h.ui.finalRun(r.RunID)
		return ok
	})
	return r.RunID, st
}

// The scripted model receives the instructions of a server whose tools
// it is offered, stripped and bounded, and not those of a server whose
// tools are all excluded nor of one configured with "instructions":
// false; mcp.get shows them (issue 24 item 3).
func TestServerInstructionsReachTheModel(t *testing.T) {
	bin := buildPrimServer(t)
	long := "Use look before poke.\x1b]0;pwned\x07\u202e Hidden\u200b words.\n" + strings.Repeat("Always be brief. ", 200)
	servers := map[string]any{
		"docs":     map[string]any{"command": bin, "args": []string{"-instructions", long}},
		"excluded": map[string]any{"command": bin, "args": []string{"-instructions", "EXCLUDED-MARKER"}, "exclude_tools": []string{"*"}},
		"quiet":    map[string]any{"command": bin, "args": []string{"-instructions", "QUIET-MARKER"}, "instructions": false},
	}
	h, log, ctx := primHost(t, servers, []map[string]any{{"text": "ok"}}, []string{"docs", "excluded", "quiet"})
	if _, st := runToEnd(t, h, ctx, "hello"); st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	calls := readScriptLog(t, log)
	if len(calls) != 1 {
		t.Fatalf("%d model calls, want 1", len(calls))
	}
	all := strings.Join(calls[0].System, "\n---\n")
	for _, want := range []string{`<server_instructions server="docs" untrusted="true">`, "Use look before poke. Hidden words.\nAlways be brief.", "[instructions cut: "} {
		if !strings.Contains(all, want) {
			t.Errorf("the model's system messages lack %q:\n%.800s", want, all)
		}
	}
	for _, bad := range []string{"\x1b", "\u202e", "\u200b", "pwned", "EXCLUDED-MARKER", "QUIET-MARKER"} {
		if strings.Contains(all, bad) {
			t.Errorf("the model's system messages hold %q", bad)
		}
	}
	_, section, _ := strings.Cut(all, `untrusted="true">`+"\n")
	section, _, _ = strings.Cut(section, "\n[instructions cut")
	if len(section) > 2048 {
		t.Errorf("docs' instructions are %d bytes, want at most 2048", len(section))
	}
	d, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "docs"})
	if err != nil || !strings.HasPrefix(d.Server.Instructions, "Use look before poke. Hidden words.") || d.Server.InstructionsOff {
		t.Errorf("mcp.get docs: %q off=%v %v", d.Server.Instructions, d.Server.InstructionsOff, err)
	}
	q, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "quiet"})
	if err != nil || q.Server.Instructions != "QUIET-MARKER" || !q.Server.InstructionsOff {
		t.Errorf("mcp.get quiet: %q off=%v %v", q.Server.Instructions, q.Server.InstructionsOff, err)
	}
}

// With "auto_allow": "read_only" in the global config, a tool that claims
// readOnlyHint and openWorldHint: false runs without ui.confirm.request,
// and a tool without those claims is still asked about (issue 24 item 5).
func TestAutoAllowReadOnlyOverProtocol(t *testing.T) {
	bin := buildPrimServer(t)
	servers := map[string]any{"fs": map[string]any{"command": bin, "auto_allow": "read_only"}}
	steps := []map[string]any{
		callStep(call("fs/look", map[string]any{})),
		{"when_result_contains": "looked", "calls": []map[string]any{call("fs/poke", map[string]any{})}},
		{"when_result_contains": "poked", "text": "done"},
	}
	h, _, ctx := primHost(t, servers, steps, []string{"fs"})
	var mu sync.Mutex
	var asked []string
	h.ui.setAnswer(func(_ context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		mu.Lock()
		defer mu.Unlock()
		if p.Tool != nil {
			asked = append(asked, p.Tool.Tool)
		}
		return &protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}, nil
	})
	id, st := runToEnd(t, h, ctx, "look then poke")
	if st.Status != protocol.RunCompleted {
		t.Fatalf("run: %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "poke" {
		t.Errorf("confirms asked for %v, want only poke", asked)
	}
	decided := map[string]string{}
	for _, e := range h.ui.runEvents(id) {
		if e.Type == "permission" && e.Phase == "decided" && e.Call != nil {
			decided[e.Call.Tool] = e.DecidedBy
		}
	}
	if decided["look"] != "read-only claim (auto_allow)" || decided["poke"] != "user" {
		t.Errorf("decided_by %v", decided)
	}
}

// A 5 MB tool result is cut at the server's output budget
// (max_output_tokens) and kept whole; the
// scripted model reads it back in parts through mcp_result_read (a byte
// range, a line range, a search), host serve's peak RSS stays well under
// 5 times the result, and the kept copy is gone when the conversation ends
// (issue 24 item 4).
func TestWholeResultReadInParts(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc for the peak RSS")
	}
	measuresMemory(t) // the race detector would multiply the RSS measured
	const size = 5 << 20
	bin := buildPrimServer(t)
	cache := t.TempDir()
	// The server's own budget: 10,000 tokens, 40,000 bytes.
	servers := map[string]any{"bigsrv": map[string]any{"command": bin, "args": []string{"-big", "5242880"}, "trust": true, "max_output_tokens": 10_000}}
	read := func(args string) map[string]any {
		return map[string]any{"name": "mcp_result_read", "args": json.RawMessage(args)}
	}
	steps := []map[string]any{
		callStep(call("bigsrv/big", map[string]any{})),
		{"when_result_contains": "mcp_result_read", "capture": `as id "([0-9a-f]+)"`, "calls": []map[string]any{
			read(`{"id": "{{capture}}", "offset": 100000, "length": 20000}`),
			read(`{"id": "{{capture}}", "lines": "52000-52001"}`),
			read(`{"id": "{{capture}}", "search": "the end"}`),
		}},
		{"when_result_contains": "THE END", "text": "read it"},
	}
	h, log, ctx := primHost(t, servers, steps, []string{"bigsrv"}, "MCP_HOST_CACHE_DIR="+cache)
	pid := h.cmd.Process.Pid
	before := peakRSSKB(pid)
	r, st := runConv(t, h, ctx, "read the big result", "")
	runID := r.RunID
	peak := peakRSSKB(pid)
	t.Logf("host serve peak RSS: %d KiB before the run, %d KiB after reading a %d KiB result in parts", before, peak, size>>10)
	if st.Status != protocol.RunCompleted || st.Text != "read it" {
		t.Fatalf("run: %+v", st)
	}
	reads := 0
	for _, e := range h.ui.runEvents(runID) {
		if e.Type == protocol.EventToolCall && e.Call != nil && e.Call.PublicName == "mcp_result_read" {
			reads++
			if e.Call.Unknown || e.Call.Server != "" {
				t.Errorf("the UI sees the read as %+v, want a local tool", e.Call)
			}
		}
	}
	if reads != 3 {
		t.Errorf("%d mcp_result_read calls in the events, want 3", reads)
	}
	calls := readScriptLog(t, log)
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	first := strings.Join(calls[1].Results, "\n")
	if !strings.Contains(first, "line 000001 ") || !strings.Contains(first, "shown are the first 40000 of 5242800 bytes (52428 lines)") || strings.Contains(first, "line 052428") {
		t.Errorf("the cut result's start: %.300s … %.600s", first, first[max(0, len(first)-600):])
	}
	parts := strings.Join(calls[2].Results, "\n---\n")
	for _, want := range []string{"line 001001 ", "next offset 120000]", "line 052000 ", "line 052001 ", "[lines 52000-52001]", "52428: line 052428 THE END"} {
		if !strings.Contains(parts, want) {
			t.Errorf("the parts read lack %q:\n%.1500s", want, parts)
		}
	}
	// The goal is well under 5 x the result above the baseline. Keeping
	// costs little (the result is streamed to its file and read back in
	// bounded parts), but decoding one 5 MB stdio answer peaks about 48
	// MB above the baseline with or without keeping (57 MB before the
	// session's line filter and lean tools/call read were trimmed); what
	// is left is mostly the go-sdk's decoding (docs/PERFORMANCE.md, "A
	// large tool result over stdio"). This bound (20 x, with room for the
	// GC's timing) catches keeping the result in memory, or handing it to
	// the model whole, on top of that.
	if peak >= before+20*size>>10 {
		t.Errorf("host serve peak RSS %d KiB (from %d), want under 20 x the %d KiB result above it", peak, before, size>>10)
	}
	if files := keptFiles(t, cache); len(files) != 1 {
		t.Errorf("kept results after the run: %v, want the one of its conversation", files)
	}
	if _, err := protocol.NewConversationCaller(h.conn).ConversationEnd(ctx, &protocol.ConversationParams{Conversation: r.Conversation}); err != nil {
		t.Fatalf("conversation.end: %v", err)
	}
	if files := keptFiles(t, cache); len(files) != 0 {
		t.Errorf("kept results left after the conversation ended: %v", files)
	}
}
