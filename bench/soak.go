package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/internal/runstats"
	"github.com/mcp-host/mcp-host/protocol"
)

// SoakConfig sizes the soak section: the work a `host serve` does while it
// is sampled. Scale multiplies every count (a few minutes at 1; hours at
// 50).
type SoakConfig struct {
	Calls      int // tool calls to the stdio server, Parallel streams at once
	Parallel   int
	Reconnects int // mcp.reconnect of the OAuth HTTP server, in waves
	Crashes    int // SIGKILLs of a stdio server, each waited back to ready
	Refreshes  int // OAuth token refreshes (tokens live TokenLife)
	Runs       int // runs whose tool call asks a confirm the UI allows
	Lazy       int // calls to a lazy server that idles out between them
	TokenLife  time.Duration
	Sample     time.Duration // the sampling interval
}

// DefaultSoak is `make bench BENCH_FLAGS='-only soak'` at scale 1.
func DefaultSoak() SoakConfig {
	return SoakConfig{Calls: 20000, Parallel: 8, Reconnects: 200, Crashes: 40, Refreshes: 20, Runs: 200, Lazy: 20,
		TokenLife: 2 * time.Second, Sample: 2 * time.Second}
}

// Scaled is c with every count times k.
func (c SoakConfig) Scaled(k int) SoakConfig {
	c.Calls, c.Reconnects, c.Crashes, c.Refreshes, c.Runs, c.Lazy = c.Calls*k, c.Reconnects*k, c.Crashes*k, c.Refreshes*k, c.Runs*k, c.Lazy*k
	return c
}

// A SoakSample is the host sampled once.
type SoakSample struct {
	At         time.Duration // since the traffic began
	Calls      int64         // tool calls done so far
	RSS        int64         // the host process's resident memory
	HeapInuse  uint64
	Goroutines int
	FDs        int
	Children   int // processes below the host
	Files      int // files in its cache and state directories
}

// A SoakCheck is one bound the run must keep.
type SoakCheck struct {
	What, Want, Got string
	OK              bool
}

// soakWait bounds each wait of the soak for a server or a run.
const soakWait = 2 * time.Minute

// soakProc reads what /proc says of pid and its descendants.
func soakProc(pid int) (rss int64, children int) {
	kids := descendants(pid)
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "statm"))
	if err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			rss = n * int64(os.Getpagesize())
		}
	}
	return rss, len(kids)
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	children := procChildren()
	var out []int
	for todo := children[pid]; len(todo) > 0; {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		out = append(out, p)
	}
	return out
}

// procChildren maps each process to its children, from /proc (empty
// where there is none).
func procChildren() map[int][]int {
	children := map[int][]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return children
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state, ppid.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	return children
}

// withMarker lists the processes whose command line holds marker (the
// soak's own directory): what is left when none should be.
func withMarker(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) {
			out = append(out, p)
		}
	}
	return out
}

// killPID kills process p at once (SIGKILL where there are signals).
func killPID(p int) {
	if proc, err := os.FindProcess(p); err == nil {
		_ = proc.Kill()
	}
}

// countFiles counts the regular files below dir.
func countFiles(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// lastStats is the last sample host serve wrote to its stats file.
func lastStats(path string) runstats.Sample {
	var s runstats.Sample
	b, err := os.ReadFile(path)
	if err != nil {
		return s
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	_ = json.Unmarshal([]byte(lines[len(lines)-1]), &s)
	return s
}

// soakUI allows every confirm once, completes logins by following the
// authorization URL (the demo's server approves at once), and tells runs'
// ends to whoever waits for them.
type soakUI struct {
	mu    sync.Mutex
	ended map[string]chan struct{}
	http  *http.Client
}

func (u *soakUI) runDone(id string) chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ended[id] == nil {
		u.ended[id] = make(chan struct{})
	}
	return u.ended[id]
}

func (u *soakUI) Confirm(_ context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	if p.Kind == protocol.ConfirmKindToolCall {
		return &protocol.ConfirmResult{Answer: protocol.AnswerAllowOnce}, nil
	}
	return &protocol.ConfirmResult{Answer: protocol.AnswerYes}, nil
}
func (u *soakUI) Prompt(context.Context, *protocol.PromptParams) (*protocol.PromptResult, error) {
	return &protocol.PromptResult{Cancelled: true}, nil
}
func (u *soakUI) OpenURL(_ context.Context, p *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	go func() {
		if resp, err := u.http.Get(p.URL); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	return &protocol.OpenURLResult{Opened: true}, nil
}
func (u *soakUI) Elicit(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return &protocol.ElicitResult{Action: "decline"}, nil
}
func (u *soakUI) MCPStatus(context.Context, *protocol.MCPStatusParams) error { return nil }
func (u *soakUI) RunStatus(context.Context, *protocol.RunStatusParams) error { return nil }
func (u *soakUI) AgentEvent(_ context.Context, p *protocol.AgentEventParams) error {
	if p.Type == protocol.EventFinal {
		close(u.runDone(p.RunID))
	}
	return nil
}
func (u *soakUI) Log(context.Context, *protocol.LogParams) error { return nil }

// soakHost is the host serve under soak.
type soakHost struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	rt    protocol.Server
	ui    *soakUI
	errs  *tail
}

func startSoakHost(ctx context.Context, host, dir string, env []string, script string) (*soakHost, error) {
	cmd := exec.Command(host, "serve", "--script", script, "--allow", "everything/*", "--allow", "lazy/*", "--allow", "oauth/*",
		"--permissions", filepath.Join(dir, "permissions.json"))
	cmd.Env, cmd.Dir = env, dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h := &soakHost{cmd: cmd, stdin: stdin, errs: &tail{}, ui: &soakUI{ended: map[string]chan struct{}{}, http: &http.Client{Timeout: 30 * time.Second}}}
	cmd.Stderr = h.errs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	conn := protocol.NewConn(stdout, stdin, protocol.ClientHandler(h.ui), protocol.ConnOptions{})
	go conn.Run(context.Background())
	h.rt = protocol.NewServerCaller(conn)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, Capabilities: protocol.UICapabilities{Confirm: true, OpenURL: true}}); err != nil {
		h.stop()
		return nil, fmt.Errorf("host serve: initialize: %w (%s)", err, h.errs)
	}
	return h, nil
}

func (h *soakHost) stop() { stopServe(h.cmd, h.stdin) }

// state is server id's status (and its error).
func (h *soakHost) state(ctx context.Context, id string) (string, string, error) {
	l, err := h.rt.MCPList(ctx, &protocol.Empty{})
	if err != nil {
		return "", "", err
	}
	for _, st := range l.Servers {
		if st.ID == id {
			return st.State, st.LastError, nil
		}
	}
	return "", "", fmt.Errorf("no server %s", id)
}

// waitFor waits until server id is in one of states, two minutes at
// most: a soak that stalls fails instead of hanging.
func (h *soakHost) waitFor(ctx context.Context, id string, states ...string) error {
	ctx, cancel := context.WithTimeout(ctx, soakWait)
	defer cancel()
	for {
		st, last, err := h.state(ctx, id)
		if err != nil {
			return err
		}
		for _, s := range states {
			if st == s {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server %s stayed %s (%s), not %v: %w", id, st, last, states, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
