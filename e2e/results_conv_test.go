package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// runConv starts a run of conversation conv ("" for a new one) and waits
// for its final status.
func runConv(t *testing.T, h *servedHost, ctx context.Context, prompt, conv string) (*protocol.RunStartResult, protocol.RunStatusParams) {
	t.Helper()
	r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: prompt, Conversation: conv})
	if err != nil {
		t.Fatal(err)
	}
	var st protocol.RunStatusParams
	waitFor(t, 2*time.Minute, "run "+r.RunID+" to end", func() bool {
		var ok bool
		st, ok = h.ui.finalRun(r.RunID)
		return ok
	})
	return r, st
}

// keptFiles lists the kept results in the cache directory.
func keptFiles(t *testing.T, cache string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(cache, "results"))
	if err != nil {
		t.Fatalf("results directory: %v", err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// A result cut at the output budget is kept for its conversation, not its
// run: a later run of the same conversation reads part of it through
// mcp_result_read, a run of another conversation that names its id cannot,
// and conversation.end removes the file (issue 24 item 4).
func TestKeptResultLivesWithItsConversation(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	bin := buildPrimServer(t)
	cache := t.TempDir()
	servers := map[string]any{"bigsrv": map[string]any{"command": bin, "args": []string{"-big", "1048576"}, "trust": true, "max_output_tokens": 10_000}}
	read := func(args string) map[string]any {
		return map[string]any{"name": "mcp_result_read", "args": json.RawMessage(args)}
	}
	steps := []map[string]any{
		// Run 1: the big result is cut and kept.
		callStep(call("bigsrv/big", map[string]any{})),
		{"when_result_contains": "mcp_result_read", "text": "kept"},
		// Run 2, the same conversation: the id comes from run 1's result.
		{"capture": `as id "([0-9a-f]+)"`, "calls": []map[string]any{read(`{"id": "{{capture}}", "offset": 100000, "length": 2000}`)}},
		{"when_result_contains": "next offset 102000", "text": "read in run 2"},
		// Run 3, another conversation: the id comes from its prompt.
		{"capture": `result ([0-9a-f]+)`, "calls": []map[string]any{read(`{"id": "{{capture}}", "offset": 0, "length": 100}`)}},
		{"when_result_contains": "no kept result", "text": "refused in run 3"},
		{"text": "run 3 read it"},
	}
	h, _, ctx := primHost(t, servers, steps, []string{"bigsrv"}, "MCP_HOST_CACHE_DIR="+cache)
	r1, st := runConv(t, h, ctx, "get the big result", "")
	if st.Status != protocol.RunCompleted || st.Text != "kept" {
		t.Fatalf("run 1: %+v", st)
	}
	files := keptFiles(t, cache)
	if len(files) != 1 {
		t.Fatalf("kept files after run 1: %v, want 1 (the result lives on with its conversation)", files)
	}
	id := regexp.MustCompile(`^result-([0-9a-f]+)\.txt$`).FindStringSubmatch(files[0])
	if id == nil {
		t.Fatalf("kept file %q", files[0])
	}
	r2, st := runConv(t, h, ctx, "read more of it", r1.Conversation)
	if st.Status != protocol.RunCompleted || st.Text != "read in run 2" {
		t.Fatalf("run 2 of conversation %s: %+v", r1.Conversation, st)
	}
	if r2.Conversation != r1.Conversation {
		t.Fatalf("run 2 is in conversation %s, want %s", r2.Conversation, r1.Conversation)
	}
	r3, st := runConv(t, h, ctx, "read kept result "+id[1], "")
	if st.Status != protocol.RunCompleted || st.Text != "refused in run 3" {
		t.Fatalf("run 3 in conversation %s: %+v", r3.Conversation, st)
	}
	conv := protocol.NewConversationCaller(h.conn)
	if _, err := conv.ConversationEnd(ctx, &protocol.ConversationParams{Conversation: r1.Conversation}); err != nil {
		t.Fatalf("conversation.end: %v", err)
	}
	if files := keptFiles(t, cache); len(files) != 0 {
		t.Errorf("kept files after conversation.end: %v", files)
	}
	// An ended conversation cannot be continued or ended again.
	_, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "more", Conversation: r1.Conversation})
	wantCode(t, "run.start of an ended conversation", err, protocol.CodeInvalidParams, "unknown conversation")
	_, err = conv.ConversationEnd(ctx, &protocol.ConversationParams{Conversation: r1.Conversation})
	wantCode(t, "conversation.end again", err, protocol.CodeInvalidParams, "unknown conversation")
	_, err = conv.ConversationEnd(ctx, &protocol.ConversationParams{})
	wantCode(t, "conversation.end without a conversation", err, protocol.CodeInvalidParams, "conversation")
}
