package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingTools are tools server-everything always lists.
var everythingTools = []string{"echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"}

func toolNames(tools []*mcp.Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

// exercise runs the checks every transport must pass against
// server-everything: catalog, a call, a cancelled long call, and a catalog
// refresh after the server's own list_changed (it registers more tools once
// it has seen the client's capabilities).
func exercise(t *testing.T, opts session.Options, sawCancel func(t *testing.T) bool) {
	t.Helper()
	changed := make(chan []*mcp.Tool, 8)
	opts.OnToolsChanged = func(tools []*mcp.Tool, err error) {
		if err == nil {
			changed <- tools
		}
	}
	opts.Elicit = func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	s, err := session.Connect(context.Background(), opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer s.Close()
	info := s.Info()
	if !strings.Contains(info.ServerName, "everything") {
		t.Errorf("server name = %q", info.ServerName)
	}
	names := toolNames(s.Tools())
	for _, want := range everythingTools {
		if !slices.Contains(names, want) {
			t.Errorf("tool %q missing from %v", want, names)
		}
	}
	t.Logf("%s: protocol %s, %d tools", opts.Transport, info.ProtocolVersion, len(names))

	res, err := s.CallTool(context.Background(), "echo", map[string]any{"message": "hello from mcp-host"})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "hello from mcp-host") {
		t.Errorf("echo result = %+v", res.Content)
	}

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "trigger-long-running-operation", map[string]any{"duration": 30, "steps": 30})
		errc <- err
	}()
	time.Sleep(1500 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call: err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !sawCancel(t) {
		if time.Now().After(deadline) {
			t.Fatal("notifications/cancelled never reached the server")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The conditional tools arrive through notifications/tools/list_changed.
	deadline = time.Now().Add(10 * time.Second)
	for !slices.Contains(toolNames(s.Tools()), "trigger-elicitation-request") {
		select {
		case <-changed:
		case <-time.After(time.Until(deadline)):
			t.Fatalf("catalog never refreshed to include the conditional tools: %v", toolNames(s.Tools()))
		}
	}
	if _, err := s.CallTool(context.Background(), "get-sum", map[string]any{"a": 2, "b": 3}); err != nil {
		t.Errorf("get-sum after the refresh: %v", err)
	}
}

func TestEverythingStdio(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	argv := testenv.NodeBin(t, "mcp-server-everything")
	// Record what reaches the server's stdin on the way through.
	inLog := filepath.Join(t.TempDir(), "stdin.jsonl")
	script := `tee "$0" | "$@"`
	opts := session.Options{
		ID:        "everything",
		Transport: session.TransportStdio,
		Command:   "sh",
		Args:      append([]string{"-c", script, inLog}, append(argv, "stdio")...),
	}
	exercise(t, opts, func(t *testing.T) bool {
		b, _ := os.ReadFile(inLog)
		return bytes.Contains(b, []byte(`"notifications/cancelled"`))
	})
}

// recordingProxy forwards to target and keeps every POSTed JSON-RPC body.
type recordingProxy struct {
	mu     sync.Mutex
	bodies []string
}

func (p *recordingProxy) start(t *testing.T, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			p.mu.Lock()
			p.bodies = append(p.bodies, string(b))
			p.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path
}

func (p *recordingProxy) saw(method string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.bodies {
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(b), &msg) == nil && msg.Method == method {
			return true
		}
	}
	return false
}

func TestEverythingStreamableHTTP(t *testing.T) {
	var proxy recordingProxy
	endpoint := proxy.start(t, testenv.StartEverythingHTTP(t))
	exercise(t, session.Options{ID: "everything-http", Transport: session.TransportHTTP, URL: endpoint}, func(*testing.T) bool {
		return proxy.saw("notifications/cancelled")
	})
}

func TestFilesystemStdio(t *testing.T) {
	argv := testenv.NodeBin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := session.Connect(context.Background(), session.Options{
		ID: "files", Transport: session.TransportStdio, Command: argv[0], Args: append(argv[1:], dir),
	})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer s.Close()
	names := toolNames(s.Tools())
	for _, want := range []string{"read_text_file", "list_directory", "write_file"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %q missing from %v", want, names)
		}
	}
	res, err := s.CallTool(context.Background(), "read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "remember the milk") {
		t.Errorf("read_text_file = %+v", res.Content)
	}
	// Outside the allowed directory the server refuses: a tool error, not a
	// transport failure.
	res, err = s.CallTool(context.Background(), "read_text_file", map[string]any{"path": "/etc/hostname"})
	if err != nil {
		t.Fatalf("refused read came back as a transport error: %v", err)
	}
	if !res.IsError {
		t.Error("reading outside the allowed directory was not refused")
	}
}

// TestEverythingLegacySSE points an "http" server at server-everything's
// 2024-11-05 SSE endpoint: the POST is refused and the session falls back.
func TestEverythingLegacySSE(t *testing.T) {
	base := testenv.StartEverything(t, "sse")
	s, err := session.Connect(context.Background(), session.Options{ID: "old", Transport: session.TransportHTTP, URL: base + "/sse"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer s.Close()
	if info := s.Info(); !info.FellBackToSSE || info.Transport != session.TransportSSE {
		t.Fatalf("info = %+v, want a fallback to sse", info)
	}
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"message": "over sse"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "over sse") {
		t.Errorf("echo = %+v", res.Content)
	}
}
