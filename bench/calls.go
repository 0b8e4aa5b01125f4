package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hostrt "github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoJSON is the arguments of every measured call.
var echoJSON = json.RawMessage(`{"text":"hello"}`)

// A callPath is one way of calling the echo tool.
type callPath struct {
	name string
	// call makes one call (Go paths); nil for an external client.
	call func(ctx context.Context) error
	// run makes n calls, width at a time, and returns the elapsed time
	// (external clients).
	run   func(n, width int) (time.Duration, error)
	close func()
}

// timed makes n calls, width at a time, and returns the elapsed time.
func (p *callPath) timed(ctx context.Context, n, width int) (time.Duration, error) {
	if p.run != nil {
		return p.run(n, width)
	}
	var (
		left    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	left.Store(int64(n))
	start := time.Now()
	for range width {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := p.call(ctx); err != nil {
					errOnce.Do(func() { first = fmt.Errorf("%s: %w", p.name, err) })
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), first
}

// allocs makes n sequential calls and returns the allocations and bytes
// allocated per call in this process.
func (p *callPath) allocs(ctx context.Context, n int) (float64, float64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		if err := p.call(ctx); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", p.name, err)
		}
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(n), float64(after.TotalAlloc-before.TotalAlloc) / float64(n), nil
}

// rawPath is the floor: the raw client (raw.go) calling echo.
func rawPath(ctx context.Context, url string) (*callPath, error) {
	c, err := newRawClient(ctx, url)
	if err != nil {
		return nil, err
	}
	var id atomic.Int64
	return &callPath{
		name: "raw HTTP floor",
		call: func(ctx context.Context) error {
			body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`, id.Add(1))
			_, err := c.post(ctx, body, `"hello"`)
			return err
		},
		close: c.close,
	}, nil
}

// sdkPath is the bare go-sdk client.
func sdkPath(ctx context.Context, url string) (*callPath, error) {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return nil, fmt.Errorf("bare go-sdk: connect %s: %w", url, err)
	}
	return &callPath{
		name: "bare go-sdk ClientSession.CallTool",
		call: func(ctx context.Context) error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: echoJSON})
			return checkEcho(res, err)
		},
		close: func() { _ = cs.Close() },
	}, nil
}

// sessionPath is mcp-host's session (runtime/session).
func sessionPath(ctx context.Context, url string) (*callPath, error) {
	s, err := session.Connect(ctx, session.Options{ID: "bench", Transport: session.TransportHTTP, URL: url})
	if err != nil {
		return nil, fmt.Errorf("mcp-host session: %w", err)
	}
	return &callPath{
		name: "mcp-host session",
		call: func(ctx context.Context) error {
			return checkEcho(s.CallTool(ctx, "echo", echoJSON))
		},
		close: func() { _ = s.Close() },
	}, nil
}

// fullPath is what a model's tool call goes through: the runtime's
// manager, the tool's adapter and the permission gate, which an allow rule
// passes.
func fullPath(ctx context.Context, url string) (*callPath, error) {
	m := hostrt.NewManager(hostrt.ManagerOptions{})
	m.Apply([]config.ServerEntry{{ID: "bench", Source: config.SourceGlobal, DefinedIn: config.SourceGlobal,
		Config: config.ServerConfig{Transport: "http", URL: url}}})
	sts, err := m.WaitSettled(ctx, "bench")
	if err != nil || len(sts) != 1 || sts[0].State != hostrt.StateReady {
		m.Close()
		return nil, fmt.Errorf("mcp-host manager: server not ready: %v %+v", err, sts)
	}
	tools, err := m.Tools("bench")
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("mcp-host manager: %w", err)
	}
	var def *mcp.Tool
	for _, t := range tools {
		if t.Name == "echo" {
			def = t
		}
	}
	t, err := adapter.New("bench", def, managerCaller{m}, adapter.Options{})
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("mcp-host adapter: %w", err)
	}
	gate, err := permission.New(permission.Options{Allow: []permission.Rule{{Server: "bench", Tool: "echo"}}, NonInteractive: permission.PolicyRulesOnly})
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("mcp-host gate: %w", err)
	}
	g := gate.Wrap(t)
	return &callPath{
		name: "mcp-host Manager + adapter + gate (allow rule)",
		call: func(ctx context.Context) error {
			res, err := g.Call(ctx, echoJSON)
			if err != nil {
				return err
			}
			if res.IsError {
				return fmt.Errorf("echo failed: %+v", res)
			}
			return nil
		},
		close: func() { m.Close() },
	}, nil
}

// managerCaller calls the tools of the bench server through a manager.
type managerCaller struct{ m *hostrt.Manager }

func (c managerCaller) CallTool(ctx context.Context, tool string, args any) (*mcp.CallToolResult, error) {
	return c.m.CallTool(ctx, "bench", tool, args)
}

func checkEcho(res *mcp.CallToolResult, err error) error {
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("echo failed: %+v", res)
	}
	return nil
}
