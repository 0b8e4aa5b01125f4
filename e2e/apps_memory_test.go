package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startHugeAppServer runs a Streamable HTTP server with one app tool, huge,
// whose UI resource ui://evil/huge.html is size bytes of HTML: over the
// host's 2 MiB bound for UI resources and under its 32 MiB response cap.
// The answer is written by hand, streamed in an SSE event, so that the
// server costs the test nothing. reads counts the resources/read requests
// for it.
func startHugeAppServer(t *testing.T, size int) (url string, reads *atomic.Int32) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "evil-apps", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "huge", Description: "an app with a huge UI", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://evil/huge.html"}}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called huge"}}}, nil, nil
		})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	reads = new(atomic.Int32)
	chunk := []byte(strings.Repeat("<p>hostile</p>", 64<<10/14))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "resources/read" && bytes.Contains(body, []byte("ui://evil/huge.html")) {
				reads.Add(1)
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, `event: message`+"\n"+`data: {"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"contents":[{"uri":"ui://evil/huge.html","mimeType":"`+protocol.AppMIMEType+`","text":"`)
				for n := size; n > 0; n -= len(chunk) {
					if _, err := w.Write(chunk[:min(n, len(chunk))]); err != nil {
						return
					}
				}
				io.WriteString(w, "\"}]}}\n\n")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL, reads
}

// peakRSSKB returns the peak resident set (VmHWM) of pid in KiB, or 0.
func peakRSSKB(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// A hostile server's app whose UI resource is 30 MiB (over the 2 MiB bound,
// under the 32 MiB response cap), opened 10 times in a row and then 8 times
// at once over the protocol (tool.call, then app.read_resource, as a UI
// does): every read is refused naming the bound, the host reads the
// resource at most ~2 MiB at a time and once in the minute (the refusal is
// remembered), and host serve's peak RSS stays under 100 MB. Before the
// bounded fetch, each opened app read and decoded the 30 MiB whole.
func TestMCPAppsHugeUIResourceKeepsHostServeSmall(t *testing.T) {
	url, reads := startHugeAppServer(t, 30<<20)
	hugeAppPeakRSS(t, map[string]any{"transport": "http", "url": url}, func() int { return int(reads.Load()) })
}

// The same over stdio: a go-sdk server (e2e/internal/hostilestdio) whose
// answer carries its id before the result, which the host's line reader
// cuts at the read's cap.
func TestMCPAppsHugeUIResourceOverStdioKeepsHostServeSmall(t *testing.T) {
	readsDir := t.TempDir()
	readsFile := filepath.Join(readsDir, "reads")
	bin := buildHostile(t)
	// The server counts its reads in a file outside its cwd: its sandbox grants that.
	sandbox := map[string]any{"filesystem": map[string]any{"write": []string{readsDir}}}
	hugeAppPeakRSS(t, map[string]any{"transport": "stdio", "command": bin, "args": []string{"-huge-app", strconv.Itoa(30 << 20), "-reads", readsFile}, "sandbox": sandbox}, func() int {
		b, _ := os.ReadFile(readsFile)
		return strings.Count(string(b), "\n")
	})
}

// hugeAppPeakRSS runs host serve with server "evil" (whose app tool "huge"
// has a 30 MiB UI resource), opens the app 10 times in a row and 8 times at
// once, and checks every open is refused, the peak RSS of host serve stays
// under 100 MB and reads() (the server's count of reads) is at most 2.
func hugeAppPeakRSS(t *testing.T, server map[string]any, reads func() int) {
	t.Helper()
	measuresMemory(t) // the race detector would multiply the RSS measured
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc for the peak RSS")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"evil": server}}})
	h := startServe(t, []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "HOME=" + dir},
		"--permissions", filepath.Join(dir, "permissions.json"), "--allow", "evil/*")
	ctx := ctxT(t, 3*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, ClientInfo: protocol.Implementation{Name: "e2e-apps-memory"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "evil ready", func() bool {
		st, err := h.rt.MCPGet(ctx, &protocol.ServerParams{ID: "evil"})
		return err == nil && st.Server.State == protocol.StateReady
	})
	pid := h.cmd.Process.Pid
	before := peakRSSKB(pid)
	apps := protocol.NewAppCaller(h.conn)
	open := func() error {
		res, err := h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "evil", Tool: "huge"})
		if err != nil {
			return err
		}
		if res.App == nil {
			t.Errorf("tool.call huge: no app instance in %+v", res)
			return nil
		}
		_, err = apps.AppReadResource(ctx, &protocol.AppReadResourceParams{AppID: res.App.ID})
		return err
	}
	check := func(err error) {
		t.Helper()
		wantCode(t, "huge", err, protocol.CodeFailed, `server "evil" tool "huge": UI resource "ui://evil/huge.html"`, "over the bound of 2097152 bytes")
	}
	for range 10 {
		check(open())
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- open()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		check(err)
	}
	peak := peakRSSKB(pid)
	t.Logf("host serve peak RSS: %d KiB before the apps were opened, %d KiB after; the server was asked for the resource %d times", before, peak, reads())
	if peak >= 100_000 {
		t.Errorf("host serve peak RSS %d KiB, want under 100 MB", peak)
	}
	if n := reads(); n > 2 {
		t.Errorf("the refused resource was read %d times in a minute, want it read once and the refusal remembered", n)
	}
}
