package runtime_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// sleepyProxy is a TCP proxy in front of an MCP server that plays what a
// laptop's suspend does to its connections: restartWhileAsleep stops the
// server behind it and starts a new one (which knows no session of
// before), while the host's end of each old connection stays open and
// silent, as a machine that slept through the FIN sees it. The first
// bytes the host sends on such a connection after it "wakes" are answered
// with a reset (RST), as the peer's kernel answers a connection it forgot.
type sleepyProxy struct {
	ln net.Listener

	mu      sync.Mutex
	backend string
	pairs   map[*proxiedConn]bool
}

type proxiedConn struct {
	client, server net.Conn
	mu             sync.Mutex
	dead           bool
}

func (c *proxiedConn) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// reset closes the host's end with a RST instead of a FIN.
func (c *proxiedConn) reset() {
	if tc, ok := c.client.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.client.Close()
}

func startSleepyProxy(t *testing.T, backend string) *sleepyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &sleepyProxy{ln: ln, backend: backend, pairs: map[*proxiedConn]bool{}}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for c := range p.pairs {
			c.client.Close()
			c.server.Close()
		}
	})
	go p.serve()
	return p
}

func (p *sleepyProxy) URL() string { return "http://" + p.ln.Addr().String() + "/mcp" }

func (p *sleepyProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		backend := p.backend
		p.mu.Unlock()
		server, err := net.Dial("tcp", backend)
		if err != nil {
			client.Close()
			continue
		}
		c := &proxiedConn{client: client, server: server}
		p.mu.Lock()
		p.pairs[c] = true
		p.mu.Unlock()
		go func() { // server → host; a dead connection sends the host nothing
			_, _ = io.Copy(client, server)
			if !c.isDead() {
				client.Close()
			}
		}()
		go func() { // host → server; on a dead connection, a reset
			buf := make([]byte, 32<<10)
			for {
				n, err := client.Read(buf)
				if n > 0 && c.isDead() {
					c.reset()
					return
				}
				if n > 0 {
					if _, werr := server.Write(buf[:n]); werr != nil {
						client.Close()
						return
					}
				}
				if err != nil {
					server.Close()
					return
				}
			}
		}()
	}
}

// restartWhileAsleep swaps the server behind the proxy for backend: the
// old connections' server ends close, their host ends stay open and
// silent until the host writes on them.
func (p *sleepyProxy) restartWhileAsleep(backend string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backend = backend
	for c := range p.pairs {
		c.mu.Lock()
		c.dead = true
		c.mu.Unlock()
		c.server.Close()
		delete(p.pairs, c)
	}
}

// backend is an MCP server for the proxy; its cleanup ends the host's
// connections first (a standalone event stream would hold Close).
func backend(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(mcpHandler())
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

func echoText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) == 0 {
		t.Fatal("empty result")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T", res.Content[0])
	}
	return tc.Text
}

// TestServerRestartedDuringSleep: the remote server restarted while the
// machine slept, so the session id the host holds is unknown to it and
// every connection the host keeps is dead (a reset on the first write).
// The next call succeeds, after a transparent reconnect, with no error
// reaching the caller; for both protocol eras.
func TestServerRestartedDuringSleep(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		name := version
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			first := backend(t)
			p := startSleepyProxy(t, first.Listener.Addr().String())
			m := runtime.NewManager(runtime.ManagerOptions{MinBackoff: time.Hour})
			t.Cleanup(func() { m.Close() })
			e := httpEntry("remote", p.URL())
			e.Config.ProtocolVersion = version
			m.Apply([]config.ServerEntry{e})
			waitState(t, m, "remote", runtime.StateReady, 10*time.Second)
			// Several calls at once leave several idle connections behind.
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					if _, err := m.CallTool(context.Background(), "remote", "echo", map[string]any{"text": "before"}); err != nil {
						t.Errorf("call before the sleep: %v", err)
					}
				})
			}
			wg.Wait()

			second := backend(t)
			p.restartWhileAsleep(second.Listener.Addr().String())
			first.CloseClientConnections()
			first.Close()

			for i := range 3 {
				res, err := m.CallTool(context.Background(), "remote", "echo", map[string]any{"text": "after"})
				if err != nil {
					t.Fatalf("call %d after the sleep: %v", i, err)
				}
				if got := echoText(t, res); got != "after" {
					t.Fatalf("call %d after the sleep: %q", i, got)
				}
			}
			if st, _ := m.Get("remote"); st.State != runtime.StateReady {
				t.Errorf("state after the sleep: %s (%s)", st.State, st.LastError)
			}
		})
	}
}

// TestServerRestartedOnTheSamePort: the server is closed (its connections
// end with a FIN the host sees) and a new one starts on the same port
// knowing no session of before. The next call succeeds without an error
// reaching the caller.
func TestServerRestartedOnTheSamePort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := &http.Server{Handler: mcpHandler()}
	go srv.Serve(ln)
	m := runtime.NewManager(runtime.ManagerOptions{MinBackoff: time.Hour})
	t.Cleanup(func() { m.Close() })
	e := httpEntry("remote", "http://"+addr+"/mcp")
	e.Config.ProtocolVersion = "2025-11-25"
	m.Apply([]config.ServerEntry{e})
	waitState(t, m, "remote", runtime.StateReady, 10*time.Second)
	if _, err := m.CallTool(context.Background(), "remote", "echo", map[string]any{"text": "before"}); err != nil {
		t.Fatal(err)
	}

	srv.Close()
	var ln2 net.Listener
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ln2, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("listening again on %s: %v", addr, err)
	}
	srv2 := &http.Server{Handler: mcpHandler()}
	go srv2.Serve(ln2)
	t.Cleanup(func() { srv2.Close() })

	res, err := m.CallTool(context.Background(), "remote", "echo", map[string]any{"text": "after"})
	if err != nil {
		t.Fatalf("call after the restart: %v", err)
	}
	if got := echoText(t, res); got != "after" {
		t.Fatalf("call after the restart: %q", got)
	}
	if st, _ := m.Get("remote"); st.State != runtime.StateReady {
		t.Errorf("state after the restart: %s (%s)", st.State, st.LastError)
	}
}
