package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServer is an in-process go-sdk server on Streamable HTTP with an echo
// tool and a tool that blocks until its context ends.
func mcpServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(mcpHandler())
	t.Cleanup(srv.Close)
	return srv
}

func mcpHandler() http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "hang"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
}

// hungServer accepts requests and never answers them.
func hungServer(t *testing.T) *httptest.Server {
	stop := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(stop) }) // runs first
	return hung
}

func httpEntry(id, url string) config.ServerEntry {
	return config.ServerEntry{ID: id, Source: "global", Config: config.ServerConfig{Transport: "http", URL: url}}
}

func settle(t *testing.T, m *runtime.Manager, ids ...string) []runtime.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sts, err := m.WaitSettled(ctx, ids...)
	if err != nil {
		t.Fatalf("servers did not settle: %v (%+v)", err, sts)
	}
	return sts
}

func waitState(t *testing.T, m *runtime.Manager, id string, want runtime.State, d time.Duration) runtime.Status {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		st, err := m.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s: state %s (last error %q), want %s", id, st.State, st.LastError, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTenServersThreeBroken shows that broken servers never hold up the
// others, and that each says why it is broken.
func TestTenServersThreeBroken(t *testing.T) {
	good := mcpServer(t)
	// A server that accepts connections and never answers.
	hung := hungServer(t)
	// A port with nothing listening.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()

	var entries []config.ServerEntry
	for i := range 7 {
		entries = append(entries, httpEntry(fmt.Sprintf("good%d", i), good.URL))
	}
	hungEntry := httpEntry("hung", hung.URL)
	hungEntry.Config.StartupTimeoutMS = 1500
	entries = append(entries, hungEntry, httpEntry("refused", closed),
		config.ServerEntry{ID: "invalid", Source: "project", Path: "/p/config.json", Err: errors.New(`config /p/config.json: server "invalid": field "url": missing`)})

	var mu sync.Mutex
	var events []runtime.Status
	m := runtime.NewManager(runtime.ManagerOptions{MinBackoff: time.Hour, OnStatus: func(st runtime.Status) {
		mu.Lock()
		events = append(events, st)
		mu.Unlock()
	}})
	defer m.Close()
	start := time.Now()
	m.Apply(entries)
	if n := len(m.List()); n != 10 {
		t.Fatalf("List() right after Apply has %d servers, want 10", n)
	}
	// The good ones are ready long before the hung one times out.
	for i := range 7 {
		waitState(t, m, fmt.Sprintf("good%d", i), runtime.StateReady, 10*time.Second)
	}
	readyAfter := time.Since(start)
	if st, _ := m.Get("hung"); st.State != runtime.StateConnecting {
		t.Logf("hung server already %s after %s", st.State, readyAfter)
	}
	sts := settle(t, m)
	byID := map[string]runtime.Status{}
	for _, st := range sts {
		byID[st.ID] = st
	}
	for i := range 7 {
		st := byID[fmt.Sprintf("good%d", i)]
		if st.State != runtime.StateReady || st.Tools != 2 || st.ServerName != "fixture" || st.LastConnectedAt.IsZero() {
			t.Errorf("%s = %+v", st.ID, st)
		}
	}
	for id, want := range map[string]string{"hung": "timed out", "refused": "refused", "invalid": `field "url"`} {
		st := byID[id]
		if st.State != runtime.StateError || !strings.Contains(st.LastError, want) {
			t.Errorf("%s: state %s, last error %q; want error mentioning %q", id, st.State, st.LastError, want)
		}
	}
	mu.Lock()
	n := len(events)
	mu.Unlock()
	if n < 19 { // connecting+ready or connecting+error each, one for the invalid entry
		t.Errorf("only %d status events for 10 servers", n)
	}
	t.Logf("7 good servers ready after %s while 3 were broken", readyAfter.Round(time.Millisecond))
}

// TestServerComesBack: a server that dies goes to error, calls fail fast
// with a clear error, and it is ready again once the server returns. The
// port stays the test's all along (a [switchListener] drops connections
// while the server is down), so no other process can take it in between
// and the second half always runs.
func TestServerComesBack(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &switchListener{Listener: inner, conns: map[net.Conn]bool{}}
	var hmu sync.Mutex
	handler := mcpHandler()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hmu.Lock()
		h := handler
		hmu.Unlock()
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(l)
	defer srv.Close()
	m := runtime.NewManager(runtime.ManagerOptions{MinBackoff: 100 * time.Millisecond, MaxBackoff: 300 * time.Millisecond})
	defer m.Close()
	e := httpEntry("flaky", "http://"+inner.Addr().String())
	e.Config.RequestTimeoutMS = 3000
	m.Apply([]config.ServerEntry{e})
	waitState(t, m, "flaky", runtime.StateReady, 10*time.Second)

	errc := make(chan error, 1)
	go func() {
		_, err := m.CallTool(context.Background(), "flaky", "hang", nil)
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond)
	l.setDown(true) // the server dies mid-call: its connections drop, new ones too
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("call on a dead server succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("in-flight call hung after the server died")
	}
	st := waitState(t, m, "flaky", runtime.StateError, 15*time.Second)
	if st.LastError == "" {
		t.Error("error state without a reason")
	}
	if _, err := m.CallTool(context.Background(), "flaky", "echo", map[string]any{"text": "x"}); err == nil || !strings.Contains(err.Error(), `"flaky"`) {
		t.Errorf("call while down: %v, want a clear error naming the server", err)
	}
	// The server returns, restarted: a new MCP server that knows no
	// session of before.
	hmu.Lock()
	handler = mcpHandler()
	hmu.Unlock()
	l.setDown(false)
	waitState(t, m, "flaky", runtime.StateReady, 15*time.Second)
	res, err := m.CallTool(context.Background(), "flaky", "echo", map[string]any{"text": "back"})
	if err != nil {
		t.Fatalf("call after the server returned: %v", err)
	}
	if res.Content[0].(*mcp.TextContent).Text != "back" {
		t.Error("wrong echo")
	}
}

// switchListener is a listener that can play a dead server: while down,
// it closes every connection it accepts, and going down closes the open
// ones; the port itself stays bound.
type switchListener struct {
	net.Listener
	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

func (l *switchListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.down {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.conns[c] = true
		l.mu.Unlock()
		return c, nil
	}
}

func (l *switchListener) setDown(down bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = down
	if down {
		for c := range l.conns {
			c.Close()
		}
		clear(l.conns)
	}
}

func TestApplyDiffs(t *testing.T) {
	srv := mcpServer(t)
	m := runtime.NewManager(runtime.ManagerOptions{})
	defer m.Close()
	a, b := httpEntry("a", srv.URL), httpEntry("b", srv.URL)
	m.Apply([]config.ServerEntry{a, b})
	settle(t, m)
	before, _ := m.Get("a")

	// b removed, c added, a unchanged.
	c := httpEntry("c", srv.URL)
	m.Apply([]config.ServerEntry{a, c})
	settle(t, m)
	ids := []string{}
	for _, st := range m.List() {
		ids = append(ids, st.ID)
	}
	if strings.Join(ids, ",") != "a,c" {
		t.Errorf("servers = %v, want a,c", ids)
	}
	after, _ := m.Get("a")
	if !after.LastConnectedAt.Equal(before.LastConnectedAt) {
		t.Error("unchanged server a was reconnected")
	}

	// a changed: reconnects.
	a.Config.ExcludeTools = []string{"hang"}
	m.Apply([]config.ServerEntry{a, c})
	st := waitState(t, m, "a", runtime.StateReady, 10*time.Second)
	if st.Tools != 1 {
		t.Errorf("a has %d tools after exclude_tools, want 1", st.Tools)
	}
	if _, err := m.CallTool(context.Background(), "a", "hang", nil); err == nil || !strings.Contains(err.Error(), "excluded") {
		t.Errorf("excluded tool call: %v", err)
	}

	// Disable and enable at runtime.
	if err := m.SetEnabled("c", false); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "c", runtime.StateDisabled, 5*time.Second)
	if err := m.SetEnabled("c", true); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "c", runtime.StateReady, 10*time.Second)
}

func TestUnsetVariableIsAConfigError(t *testing.T) {
	srv := mcpServer(t)
	e := httpEntry("needs-env", srv.URL)
	e.Config.Headers = map[string]string{"Authorization": "Bearer ${MCP_HOST_TEST_UNSET_TOKEN}"}
	m := runtime.NewManager(runtime.ManagerOptions{LookupEnv: func(string) (string, bool) { return "", false }})
	defer m.Close()
	m.Apply([]config.ServerEntry{e})
	st := waitState(t, m, "needs-env", runtime.StateError, 5*time.Second)
	if !strings.Contains(st.LastError, "MCP_HOST_TEST_UNSET_TOKEN") || !strings.Contains(st.LastError, "needs-env") {
		t.Errorf("last error = %q, want it to name the variable and the server", st.LastError)
	}
}

func TestListNeverBlocks(t *testing.T) {
	hung := hungServer(t)
	m := runtime.NewManager(runtime.ManagerOptions{})
	defer m.Close()
	m.Apply([]config.ServerEntry{httpEntry("slow", hung.URL)})
	done := make(chan []runtime.Status, 1)
	go func() { done <- m.List() }()
	select {
	case sts := <-done:
		if len(sts) != 1 {
			t.Fatalf("List = %+v", sts)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("List blocked on a connecting server")
	}
}
