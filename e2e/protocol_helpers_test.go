package e2e_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// gapsHost is `host serve` with server-everything as "everything", a
// scripted model and the given UI capabilities, initialized and with
// everything ready.
type gapsHost struct {
	*servedHost
	dir    string
	config string
	init   *protocol.InitializeResult
}

// startGaps starts host serve for the protocol-gap tests (issue 13).
// script is the scripted model's steps; args are extra flags.
func startGaps(t *testing.T, caps protocol.UICapabilities, script []map[string]any, args ...string) *gapsHost {
	t.Helper()
	everything := testenv.NodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"everything": map[string]any{"transport": "stdio", "command": everything[0], "args": append(everything[1:], "stdio")},
	}}})
	if script == nil {
		script = []map[string]any{{"text": "nothing to do"}}
	}
	scriptFile := filepath.Join(dir, "script.json")
	writeJSONFile(t, scriptFile, script)
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file"},
		append([]string{"--script", scriptFile, "--permissions", filepath.Join(dir, "permissions.json")}, args...)...)
	ctx := ctxT(t, time.Minute)
	init, err := h.rt.Initialize(ctx, &protocol.InitializeParams{
		ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-gaps"}, Capabilities: caps,
	})
	if err != nil {
		t.Fatal(err)
	}
	g := &gapsHost{servedHost: h, dir: dir, config: config, init: init}
	waitFor(t, 60*time.Second, "everything ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "everything"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	return g
}

// runToEnd starts a run and waits for its final run.status.
func (g *gapsHost) runToEnd(t *testing.T, prompt string) (string, protocol.RunStatusParams) {
	t.Helper()
	ctx := ctxT(t, time.Minute)
	r, err := g.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	var st protocol.RunStatusParams
	waitFor(t, 30*time.Second, "run "+r.RunID+" to end", func() bool {
		var ok bool
		st, ok = g.ui.finalRun(r.RunID)
		return ok
	})
	return r.RunID, st
}

func callStep(calls ...map[string]any) map[string]any { return map[string]any{"calls": calls} }

func call(name string, args map[string]any) map[string]any {
	return map[string]any{"name": name, "args": args}
}

// wireNotes returns the params of every notification of method the
// runtime wrote, in order.
func (h *servedHost) wireNotes(method string) []json.RawMessage {
	h.out.mu.Lock()
	data := append([]byte(nil), h.out.w.(*bytes.Buffer).Bytes()...)
	h.out.mu.Unlock()
	var out []json.RawMessage
	for _, line := range bytes.Split(data, []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == method && m.ID == nil {
			out = append(out, m.Params)
		}
	}
	return out
}
