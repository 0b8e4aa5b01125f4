package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/serve"
)

// ui is a UI that declares no capabilities and records what it is told.
type ui struct {
	mu       sync.Mutex
	statuses []protocol.ServerStatus
}

func (u *ui) Confirm(context.Context, *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	return nil, errors.New("not declared")
}
func (u *ui) Prompt(context.Context, *protocol.PromptParams) (*protocol.PromptResult, error) {
	return nil, errors.New("not declared")
}
func (u *ui) OpenURL(context.Context, *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	return nil, errors.New("not declared")
}
func (u *ui) Elicit(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return nil, errors.New("not declared")
}
func (u *ui) MCPStatus(_ context.Context, p *protocol.MCPStatusParams) error {
	u.mu.Lock()
	u.statuses = append(u.statuses, p.Server)
	u.mu.Unlock()
	return nil
}
func (u *ui) RunStatus(context.Context, *protocol.RunStatusParams) error   { return nil }
func (u *ui) AgentEvent(context.Context, *protocol.AgentEventParams) error { return nil }
func (u *ui) Log(context.Context, *protocol.LogParams) error               { return nil }

// start runs Serve in-process over pipes and returns the UI's end.
// The returned channel is closed when Serve has returned; *serveErr is then
// its error.
func start(t *testing.T, opts serve.ServeOptions) (rt protocol.Server, done <-chan struct{}, serveErr *error) {
	t.Helper()
	conn, done, serveErr := startConn(t, opts)
	return protocol.NewServerCaller(conn), done, serveErr
}

// startConn is start returning the UI's connection, for the callers of
// the methods beyond protocol.Server.
func startConn(t *testing.T, opts serve.ServeOptions) (*protocol.Conn, <-chan struct{}, *error) {
	t.Helper()
	return startConnUI(t, opts, &ui{})
}

// startConnUI is startConn with the UI that records the notifications.
func startConnUI(t *testing.T, opts serve.ServeOptions, u *ui) (*protocol.Conn, <-chan struct{}, *error) {
	t.Helper()
	toRuntime, fromUI := io.Pipe()
	toUI, fromRuntime := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	var err error
	go func() {
		err = serve.Serve(ctx, toRuntime, fromRuntime, opts)
		fromRuntime.Close()
		close(finished)
	}()
	conn := protocol.NewConn(toUI, fromUI, protocol.ClientHandler(u), protocol.ConnOptions{})
	go conn.Run(ctx)
	t.Cleanup(func() {
		cancel()
		fromUI.Close()
		select {
		case <-finished:
		case <-time.After(15 * time.Second):
			t.Error("Serve did not return after its context ended")
		}
	})
	return conn, finished, &err
}

func code(err error) int64 {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return 0
}

// The UI-protocol server answers from the configuration without waiting for
// any server: an invalid entry and a disabled one are listed with their
// state, unknown and unready servers get their error codes, and shutdown
// ends Serve.
func TestServeAnswersFromConfig(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "config.json")
	if err := os.WriteFile(global, []byte(`{"version":1,"mcp":{"servers":{
		"broken":{"transport":"http"},
		"off":{"transport":"stdio","command":"does-not-matter","enabled":false,
			"env":{"MODE":"x"},"env_vars":["SERVE_TEST_WANTED","SERVE_TEST_UNSET"]}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, done, serveErr := start(t, serve.ServeOptions{Config: config.LoadOptions{GlobalPath: global}, WatchInterval: -1, Version: "test"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if _, err := rt.MCPList(ctx, &protocol.Empty{}); code(err) != protocol.CodeNotInitialized {
		t.Fatalf("mcp.list before initialize: err = %v, want code %d", err, protocol.CodeNotInitialized)
	}
	res, err := rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version})
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Version != "test" || res.Capabilities.Runs {
		t.Errorf("initialize = %+v, want version test and no runs (no model)", res)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], `server "broken"`) || !strings.Contains(res.Problems[0], global) {
		t.Errorf("problems = %q, want one naming the file and server broken", res.Problems)
	}
	states := map[string]string{}
	for _, st := range res.Servers {
		states[st.ID] = st.State
	}
	if states["broken"] != "error" || states["off"] != "disabled" || len(states) != 2 {
		t.Errorf("states = %v, want broken=error off=disabled", states)
	}

	// mcp.get names the variables a stdio server gets, never a value, and
	// none of the host's others.
	t.Setenv("SERVE_TEST_WANTED", "wanted-value")
	t.Setenv("OPENAI_API_KEY", "sk-serve-test")
	off, err := rt.MCPGet(ctx, &protocol.ServerParams{ID: "off"})
	if err != nil {
		t.Fatal(err)
	}
	if n := off.Server.Environment; n == nil || !slices.Contains(n.Base, "PATH") || !slices.Equal(n.Env, []string{"MODE"}) ||
		!slices.Equal(n.EnvVars, []string{"SERVE_TEST_WANTED"}) || !slices.Equal(n.Unset, []string{"SERVE_TEST_UNSET"}) {
		t.Errorf("mcp.get off: environment = %+v, want base with PATH, env MODE, env_vars SERVE_TEST_WANTED, unset SERVE_TEST_UNSET", n)
	}
	if b, _ := json.Marshal(off); strings.Contains(string(b), "wanted-value") || strings.Contains(string(b), "OPENAI_API_KEY") {
		t.Errorf("mcp.get off shows a value or a withheld name: %s", b)
	}
	if _, err := rt.MCPGet(ctx, &protocol.ServerParams{ID: "nope"}); code(err) != protocol.CodeUnknownServer {
		t.Errorf("mcp.get nope: err = %v, want code %d", err, protocol.CodeUnknownServer)
	}
	if _, err := rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "off", Tool: "x"}); code(err) != protocol.CodeNotReady {
		t.Errorf("tool.call on a disabled server: err = %v, want code %d", err, protocol.CodeNotReady)
	}
	if _, err := rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "hi"}); code(err) != protocol.CodeNoModel {
		t.Errorf("run.start without a model: err = %v, want code %d", err, protocol.CodeNoModel)
	}

	if _, err := rt.Shutdown(ctx, &protocol.Empty{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		if *serveErr != nil {
			t.Errorf("Serve returned %v after shutdown", *serveErr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after shutdown")
	}
}
