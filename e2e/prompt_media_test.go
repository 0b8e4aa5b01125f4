package e2e_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// A prompt's image and embedded blob, run as the user's turn, reach the
// model as parts of the user's message, byte for byte (the scripted model
// logs each part's type, size and SHA-256), not only named in its text:
// primserver's "picture" prompt (a PNG) and the npm server-everything's
// resource-prompt with a blob resource (issue 24 item 1).
func TestPromptMediaReachTheModel(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	bin := buildPrimServer(t)
	everything := testenv.NodeBin(t, "mcp-server-everything")
	servers := map[string]any{
		"pics":       map[string]any{"command": bin},
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
	}
	h, log, ctx := primHost(t, servers, []map[string]any{{"text": "a red square"}, {"text": "a blob"}}, []string{"pics", "everything"})
	prim := protocol.NewPrimitivesCaller(h.conn)
	run := func(server, name string, args map[string]string) protocol.Content {
		t.Helper()
		got, err := prim.PromptsGet(ctx, &protocol.PromptsGetParams{Server: server, Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("prompts.get %s/%s: %v", server, name, err)
		}
		var data protocol.Content
		for _, m := range got.Messages {
			if len(m.Content.Data) > 0 {
				data = m.Content
			}
		}
		if data.Data == nil {
			t.Fatalf("prompts.get %s/%s: no message with data: %+v", server, name, got.Messages)
		}
		r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Messages: got.Messages})
		if err != nil {
			t.Fatalf("run.start with %s/%s: %v", server, name, err)
		}
		waitFor(t, time.Minute, "run "+r.RunID, func() bool { _, ok := h.ui.finalRun(r.RunID); return ok })
		return data
	}
	img := run("pics", "picture", nil)
	blob := run("everything", "resource-prompt", map[string]string{"resourceType": "Blob", "resourceId": "1"})
	calls := readScriptLog(t, log)
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want 2", len(calls))
	}
	for i, want := range []protocol.Content{img, blob} {
		sum := sha256.Sum256(want.Data)
		parts := calls[i].UserParts
		if len(parts) != 1 || parts[0].Type != want.Type || parts[0].MIMEType != want.MIMEType || parts[0].URI != want.URI ||
			parts[0].Bytes != len(want.Data) || parts[0].SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("model call %d got parts %+v, want one %s %s %s of %d bytes", i+1, parts, want.Type, want.MIMEType, want.URI, len(want.Data))
		}
	}
	if img.Type != "image" || img.MIMEType != "image/png" || blob.Type != "resource" || blob.URI != "demo://resource/dynamic/blob/1" {
		t.Errorf("the prompts' data parts: %s %s, %s %s", img.Type, img.MIMEType, blob.Type, blob.URI)
	}
}

// Under a model behind the OpenAI-compatible API (a loopback stand-in
// that records what it is sent), a prompt's PNG goes in the user's message
// as an image_url content part with the image as a data URL, after the
// text that names it (issue 24 item 1).
func TestPromptImageReachesAnOpenAIModel(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	bin := buildPrimServer(t)
	var mu sync.Mutex
	var bodies [][]byte
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"a red square"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer api.Close()
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"pics": map[string]any{"command": bin}}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "HOME=" + dir, "OPENAI_API_KEY="},
		"--model", "vision-test", "--base-url", api.URL+"/v1", "--permissions", filepath.Join(dir, "permissions.json"))
	ctx := ctxT(t, 2*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "pics ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "pics"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	got, err := protocol.NewPrimitivesCaller(h.conn).PromptsGet(ctx, &protocol.PromptsGetParams{Server: "pics", Name: "picture"})
	if err != nil || len(got.Messages) != 2 {
		t.Fatalf("prompts.get: %v %+v", err, got)
	}
	png := got.Messages[1].Content.Data
	r, err := h.rt.RunStart(ctx, &protocol.RunStartParams{Messages: got.Messages})
	if err != nil {
		t.Fatal(err)
	}
	var st protocol.RunStatusParams
	waitFor(t, time.Minute, "run "+r.RunID, func() bool { var ok bool; st, ok = h.ui.finalRun(r.RunID); return ok })
	if st.Status != protocol.RunCompleted || st.Text != "a red square" {
		t.Fatalf("run: %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 {
		t.Fatalf("%d model requests, want 1", len(bodies))
	}
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[0], &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("model request: %v %.300s", err, bodies[0])
	}
	last := req.Messages[len(req.Messages)-1]
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(last.Content, &parts); err != nil || last.Role != "user" || len(parts) != 2 {
		t.Fatalf("the user's message went as %s %.400s (%v), want a text and an image part", last.Role, last.Content, err)
	}
	if parts[0].Type != "text" || !strings.Contains(parts[0].Text, "What is in this picture?") || !strings.Contains(parts[0].Text, "[image: image/png") {
		t.Errorf("text part %+v", parts[0])
	}
	if want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png); parts[1].Type != "image_url" || parts[1].ImageURL.URL != want {
		t.Errorf("image part %s %.80s…, want the prompt's PNG as a data URL", parts[1].Type, parts[1].ImageURL.URL)
	}
}
