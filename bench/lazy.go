package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// A LazyRow is one measurement of `host serve` with the eight npm stdio
// servers, started eagerly or on first use.
type LazyRow struct {
	What string
	// Eager and Lazy are the medians; EagerRSS and LazyRSS are set
	// instead for memory rows.
	Eager, Lazy       time.Duration
	EagerRSS, LazyRSS int64
	// Ref, when set, is what the lazy value is compared to (a server's
	// own start) and RefWhat names it.
	Ref     time.Duration
	RefWhat string
}

// lazyServers are the eight servers: the e2e peers and bench/node's.
func lazyServers(node, e2e, benchMods, dir string) map[string]map[string]any {
	s := func(js string, args ...string) map[string]any {
		// Unconfined, so the rows measure start-up alone, the same for
		// every server on every machine.
		return map[string]any{"command": node, "args": append([]string{js}, args...), "sandbox": false}
	}
	return map[string]map[string]any{
		"everything1": s(filepath.Join(e2e, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"),
		"everything2": s(filepath.Join(e2e, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"),
		"filesystem":  s(filepath.Join(e2e, "@modelcontextprotocol/server-filesystem/dist/index.js"), dir),
		"memory":      s(filepath.Join(benchMods, "@modelcontextprotocol/server-memory/dist/index.js")),
		"thinking":    s(filepath.Join(benchMods, "@modelcontextprotocol/server-sequential-thinking/dist/index.js")),
		"playwright":  s(filepath.Join(benchMods, "@playwright/mcp/cli.js")),
		"chart":       s(filepath.Join(benchMods, "@antv/mcp-server-chart/build/index.js")),
		"git":         s(filepath.Join(benchMods, "@cyanheads/git-mcp-server/dist/index.js")),
	}
}

// served is one `host serve` child spoken to over its pipes.
type served struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	rt    protocol.Server
	start time.Time
}

// benchUI is a UI that declines every question (the runs allow every call
// by rule, so none comes) and ignores notifications.
type benchUI struct{}

func (benchUI) Confirm(context.Context, *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	return &protocol.ConfirmResult{Answer: protocol.AnswerDeny}, nil
}
func (benchUI) Prompt(context.Context, *protocol.PromptParams) (*protocol.PromptResult, error) {
	return &protocol.PromptResult{Cancelled: true}, nil
}
func (benchUI) OpenURL(context.Context, *protocol.OpenURLParams) (*protocol.OpenURLResult, error) {
	return &protocol.OpenURLResult{}, nil
}
func (benchUI) Elicit(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return &protocol.ElicitResult{Action: "decline"}, nil
}
func (benchUI) MCPStatus(context.Context, *protocol.MCPStatusParams) error   { return nil }
func (benchUI) RunStatus(context.Context, *protocol.RunStatusParams) error   { return nil }
func (benchUI) AgentEvent(context.Context, *protocol.AgentEventParams) error { return nil }
func (benchUI) Log(context.Context, *protocol.LogParams) error               { return nil }

func startServed(ctx context.Context, host, dir string, env []string) (*served, error) {
	cmd := exec.Command(host, "serve", "--allow", "*/*", "--permissions", filepath.Join(dir, "permissions.json"))
	cmd.Env, cmd.Dir = env, dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = &tail{}
	sv := &served{cmd: cmd, stdin: stdin, start: time.Now()}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	conn := protocol.NewConn(stdout, stdin, protocol.ClientHandler(benchUI{}), protocol.ConnOptions{})
	go conn.Run(context.Background())
	sv.rt = protocol.NewServerCaller(conn)
	if _, err := sv.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version}); err != nil {
		sv.stop()
		return nil, fmt.Errorf("host serve: initialize: %w (%s)", err, cmd.Stderr)
	}
	return sv, nil
}

func (s *served) stop() { stopServe(s.cmd, s.stdin) }

// stopServe ends a host serve child as a UI does: its stdin closed, then
// waited for, killed after 20 seconds.
func stopServe(cmd *exec.Cmd, stdin io.Closer) {
	_ = stdin.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// catalogOffered waits until every server is ready or idle and the
// catalog offered holds want MCP tools (0: whatever it holds then), and
// returns the time since the process started and the count.
func (s *served) catalogOffered(ctx context.Context, want int) (time.Duration, int, error) {
	for {
		l, err := s.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			return 0, 0, err
		}
		settled := true
		for _, st := range l.Servers {
			switch st.State {
			case protocol.StateReady, protocol.StateIdle:
			case protocol.StateError:
				return 0, 0, fmt.Errorf("server %s: %s", st.ID, st.LastError)
			default:
				settled = false
			}
		}
		if settled {
			tl, err := s.rt.ToolsList(ctx, &protocol.ToolsListParams{})
			if err != nil {
				return 0, 0, err
			}
			n := 0
			for _, t := range tl.Tools {
				if t.Server != "" {
					n++
				}
			}
			if want == 0 || n >= want {
				return time.Since(s.start), n, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// call times one tool.call.
func (s *served) call(ctx context.Context, server, tool string) (time.Duration, error) {
	start := time.Now()
	_, err := s.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: server, Tool: tool})
	return time.Since(start), err
}

// waitState waits until server is in state.
func (s *served) waitState(ctx context.Context, server, state string) error {
	for {
		l, err := s.rt.MCPList(ctx, &protocol.Empty{})
		if err != nil {
			return err
		}
		for _, st := range l.Servers {
			if st.ID == server && st.State == state {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server %s never %s: %w", server, state, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ownStart is the cold server's own start and first call, in process:
// spawn, initialize, tools/list, one call.
func ownStart(ctx context.Context, def map[string]any) (time.Duration, error) {
	args, _ := def["args"].([]string)
	start := time.Now()
	s, err := session.Connect(ctx, session.Options{ID: "own", Command: def["command"].(string), Args: args})
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, lazyCallTool, map[string]any{}); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// The cold server the rows call, and its tool.
const (
	lazyCallServer = "memory"
	lazyCallTool   = "read_graph"
)

// writeLazyConfig writes the servers with start mode (and, for the
// called server, a 1-second idle timeout) into dir/config.json.
func writeLazyConfig(dir string, servers map[string]map[string]any, start string) (string, error) {
	out := map[string]any{}
	for id, def := range servers {
		d := map[string]any{}
		for k, v := range def {
			d[k] = v
		}
		d["start"] = start
		if id == lazyCallServer {
			d["idle_timeout_ms"] = 1000
		}
		out[id] = d
	}
	raw, err := json.Marshal(map[string]any{"version": 1, "mcp": map[string]any{"servers": out}})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "config-"+start+".json")
	return path, os.WriteFile(path, raw, 0o600)
}
