package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// testUI is a UI as the protocol sees it: it records every notification
// and answers confirms with a function the test sets.
type testUI struct {
	mu       sync.Mutex
	statuses []protocol.MCPStatusParams
	events   []protocol.AgentEventParams
	runs     []protocol.RunStatusParams
	logs     []protocol.LogParams
	confirms []protocol.ConfirmParams
	answer   func(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error)
	openURL  func(url string) bool
	urls     []protocol.OpenURLParams // every ui.open_url.request, in order
	// prompt answers ui.prompt.request; nil cancels every prompt.
	prompt func(ctx context.Context, p *protocol.PromptParams) (*protocol.PromptResult, error)
	// elicit answers ui.elicit.request; nil declines every elicitation.
	elicit func(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error)
}

func (u *testUI) Confirm(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	u.mu.Lock()
	u.confirms = append(u.confirms, *p)
	answer := u.answer
	u.mu.Unlock()
	if answer == nil {
		return &protocol.ConfirmResult{Answer: protocol.AnswerDeny}, nil
	}
	return answer(ctx, p)
}

func (u *testUI) Prompt(ctx context.Context, p *protocol.PromptParams) (*protocol.PromptResult, error) {
	u.mu.Lock()
	prompt := u.prompt
	u.mu.Unlock()
	if prompt != nil {
		return prompt(ctx, p)
	}
	return &protocol.PromptResult{Cancelled: true}, nil
}

func (u *testUI) OpenURL(_ context.Context, p *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	u.mu.Lock()
	open := u.openURL
	u.urls = append(u.urls, *p)
	u.mu.Unlock()
	if open == nil {
		return &protocol.OpenURLResult{}, nil
	}
	return &protocol.OpenURLResult{Opened: open(p.URL)}, nil
}

func (u *testUI) Elicit(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	u.mu.Lock()
	elicit := u.elicit
	u.mu.Unlock()
	if elicit != nil {
		return elicit(ctx, p)
	}
	return &protocol.ElicitResult{Action: "decline"}, nil
}

func (u *testUI) MCPStatus(_ context.Context, p *protocol.MCPStatusParams) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.statuses = append(u.statuses, *p)
	return nil
}

func (u *testUI) RunStatus(_ context.Context, p *protocol.RunStatusParams) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.runs = append(u.runs, *p)
	return nil
}

func (u *testUI) AgentEvent(_ context.Context, p *protocol.AgentEventParams) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.events = append(u.events, *p)
	return nil
}

func (u *testUI) Log(_ context.Context, p *protocol.LogParams) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.logs = append(u.logs, *p)
	return nil
}

func (u *testUI) setAnswer(f func(ctx context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.answer = f
}

func answerWith(a string) func(context.Context, *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	return func(context.Context, *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
		return &protocol.ConfirmResult{Answer: a}, nil
	}
}

// finalRun returns the final run.status of a run, if it has come.
func (u *testUI) finalRun(id string) (protocol.RunStatusParams, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, r := range u.runs {
		if r.RunID == id && r.Status != protocol.RunRunning {
			return r, true
		}
	}
	return protocol.RunStatusParams{}, false
}

func (u *testUI) runEvents(id string) []protocol.AgentEventParams {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []protocol.AgentEventParams
	for _, e := range u.events {
		if e.RunID == id {
			out = append(out, e)
		}
	}
	return out
}

// servedHost is `host serve` running as a child, driven over its pipes.
type servedHost struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	conn   *protocol.Conn
	rt     protocol.Server
	ui     *testUI
	stderr *bytes.Buffer
	exited chan error
	out    *lockedWriter // every line the runtime wrote
	schema *schemaCheck  // every message checked against the schema
}

// answers returns the error answers the runtime wrote, keyed by their id
// as JSON ("null" for errors about unreadable lines, in order).
func (h *servedHost) answers(t *testing.T) map[string][]int64 {
	h.out.mu.Lock()
	data := append([]byte(nil), h.out.w.(*bytes.Buffer).Bytes()...)
	h.out.mu.Unlock()
	out := map[string][]int64{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if len(line) == 0 {
			continue
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("runtime wrote a line that is not JSON: %.200q", line)
		}
		if m.Error != nil {
			out[string(m.ID)] = append(out[string(m.ID)], m.Error.Code)
		}
	}
	return out
}

func startServe(t *testing.T, env []string, args ...string) *servedHost {
	t.Helper()
	return startServeIn(t, t.TempDir(), env, args...)
}

// startServeIn starts `host serve` with dir as its working directory (so
// dir/.mcp-host/config.json is its project layer).
func startServeIn(t *testing.T, dir string, env []string, args ...string) *servedHost {
	t.Helper()
	bin := buildHost(t)
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Dir = dir
	// Each host serve keeps its tools/list cache in a directory of its own
	// unless the test shares one on purpose.
	cmd.Env = append(append(os.Environ(), "MCP_HOST_CACHE_DIR="+t.TempDir()), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Not cmd.StdoutPipe: Wait (run below as soon as the process starts)
	// closes that pipe when the process exits, which can drop the last
	// answer (shutdown's) before the connection has read it ("connection
	// closed" in a full run). This pipe is read to its end and closed here.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = stdoutW
	h := &servedHost{cmd: cmd, stdin: stdin, ui: &testUI{}, stderr: &bytes.Buffer{}, exited: make(chan error, 1), out: &lockedWriter{w: &bytes.Buffer{}}}
	cmd.Stderr = &lockedWriter{w: h.stderr}
	err = cmd.Start()
	stdoutW.Close() // the child holds its own copy
	if err != nil {
		stdout.Close()
		t.Fatal(err)
	}
	go func() { h.exited <- cmd.Wait() }()
	h.schema = newSchemaCheck(t)
	fromRuntime := &lineTap{fn: func(l []byte) { h.schema.check(protocol.RuntimeToUI, l) }}
	fromUI := &lineTap{fn: func(l []byte) { h.schema.check(protocol.UIToRuntime, l) }}
	h.conn = protocol.NewConn(tapReader{io.TeeReader(stdout, h.out), fromRuntime}, tapWriter{stdin, fromUI}, protocol.ClientHandler(h.ui), protocol.ConnOptions{})
	go h.conn.Run(context.Background())
	h.rt = protocol.NewServerCaller(h.conn)
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-h.exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
		}
		stdout.Close()
		h.schema.verify(t)
		if t.Failed() || os.Getenv("E2E_SHOW_STDERR") != "" {
			t.Logf("host serve stderr:\n%s", h.stderr.String())
		}
	})
	return h
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
