package protocol_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// pair connects two Conns with pipes and runs both.
func pair(t *testing.T, a, b protocol.Handler, opts protocol.ConnOptions) (*protocol.Conn, *protocol.Conn) {
	t.Helper()
	return pairOpts(t, a, b, opts, opts)
}

type fakeServer struct {
	protocol.Server // unimplemented methods panic if called
}

func (s *fakeServer) MCPGet(_ context.Context, p *protocol.ServerParams) (*protocol.MCPGetResult, error) {
	if p.ID != "a" {
		return nil, protocol.Errorf(protocol.CodeUnknownServer, "no server %q is configured", p.ID)
	}
	return &protocol.MCPGetResult{Server: protocol.ServerDetail{ServerStatus: protocol.ServerStatus{ID: "a", State: protocol.StateReady}}}, nil
}

func (s *fakeServer) MCPList(context.Context, *protocol.Empty) (*protocol.MCPListResult, error) {
	return nil, errors.New("plain failure")
}

func TestCallAndErrors(t *testing.T) {
	ui, _ := pair(t, nil, protocol.ServerHandler(&fakeServer{}), protocol.ConnOptions{})
	srv := protocol.NewServerCaller(ui)
	ctx := context.Background()
	got, err := srv.MCPGet(ctx, &protocol.ServerParams{ID: "a"})
	if err != nil || got.Server.ID != "a" || got.Server.State != "ready" {
		t.Fatalf("MCPGet = %+v, %v", got, err)
	}
	_, err = srv.MCPGet(ctx, &protocol.ServerParams{ID: "zz"})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownServer || !strings.Contains(perr.Message, `"zz"`) {
		t.Errorf("unknown server: err = %v", err)
	}
	_, err = srv.MCPList(ctx, &protocol.Empty{})
	if !errors.As(err, &perr) || perr.Code != protocol.CodeFailed || perr.Message != "plain failure" {
		t.Errorf("plain error: err = %v", err)
	}
	err = ui.Call(ctx, "no.such.method", nil, nil)
	if !errors.As(err, &perr) || perr.Code != protocol.CodeMethodNotFound {
		t.Errorf("unknown method: err = %v", err)
	}
	err = ui.Call(ctx, protocol.MethodMCPGet, map[string]any{"id": 42}, nil)
	if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidParams {
		t.Errorf("wrong param type: err = %v", err)
	}
}

// rawPeer drives a Conn with raw lines and reads raw lines back.
func rawPeer(t *testing.T, h protocol.Handler, max int) (send func(string), recv func() map[string]any) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := protocol.NewConn(inR, outW, h, protocol.ConnOptions{MaxLineBytes: max})
	done := make(chan struct{})
	go func() { c.Run(context.Background()); close(done) }()
	t.Cleanup(func() { inW.Close(); outR.Close(); <-done })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send = func(s string) {
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}
	recv = func() map[string]any {
		select {
		case l := <-lines:
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("runtime wrote a non-JSON line %q", l)
			}
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no answer")
		}
		return nil
	}
	return send, recv
}

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

func TestMalformedInputKeepsServing(t *testing.T) {
	send, recv := rawPeer(t, protocol.ServerHandler(&fakeServer{}), 1024)
	cases := []struct {
		name, line string
		code       int
		id         any
	}{
		{"not JSON", "this is not json\n", protocol.CodeParseError, nil},
		{"no version", `{"id":1,"method":"mcp.get","params":{"id":"a"}}` + "\n", protocol.CodeInvalidRequest, 1.0},
		{"wrong param type", `{"jsonrpc":"2.0","id":2,"method":"mcp.get","params":{"id":[1]}}` + "\n", protocol.CodeInvalidParams, 2.0},
		{"unknown method", `{"jsonrpc":"2.0","id":"x","method":"nope"}` + "\n", protocol.CodeMethodNotFound, "x"},
		{"huge line", `{"jsonrpc":"2.0","id":3,"method":"mcp.get","params":{"id":"` + strings.Repeat("a", 5000) + `"}}` + "\n", protocol.CodeInvalidRequest, nil},
	}
	for _, c := range cases {
		send(c.line)
		m := recv()
		if errCode(m) != c.code || m["id"] != c.id {
			t.Errorf("%s: answer %v, want code %d id %v", c.name, m, c.code, c.id)
		}
	}
	// Still serving.
	send(`{"jsonrpc":"2.0","id":9,"method":"mcp.get","params":{"id":"a"}}` + "\n")
	m := recv()
	if m["id"] != 9.0 || m["error"] != nil {
		t.Fatalf("after bad input: %v", m)
	}
}

type noteRecorder struct {
	protocol.Client
	mu  sync.Mutex
	got []string
}

func (n *noteRecorder) MCPStatus(_ context.Context, p *protocol.MCPStatusParams) error {
	time.Sleep(time.Millisecond) // a slow UI must still see them in order
	n.mu.Lock()
	n.got = append(n.got, p.Server.State)
	n.mu.Unlock()
	return nil
}

func TestNotificationsArriveInOrder(t *testing.T) {
	rec := &noteRecorder{}
	rt, _ := pair(t, nil, protocol.ClientHandler(rec), protocol.ConnOptions{})
	ui := protocol.NewClientCaller(rt)
	var want []string
	for i := range 50 {
		s := fmt.Sprint(i)
		want = append(want, s)
		if err := ui.MCPStatus(context.Background(), &protocol.MCPStatusParams{Server: protocol.ServerStatus{State: s}}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		rec.mu.Lock()
		n := len(rec.got)
		rec.mu.Unlock()
		if n == len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if strings.Join(rec.got, ",") != strings.Join(want, ",") {
		t.Fatalf("order: got %v", rec.got)
	}
}

func TestCallFailsWhenPeerGoes(t *testing.T) {
	inR, inW := io.Pipe()
	c := protocol.NewConn(inR, io.Discard, nil, protocol.ConnOptions{})
	go c.Run(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), protocol.MethodUIConfirm, &protocol.ConfirmParams{}, nil) }()
	time.Sleep(50 * time.Millisecond)
	inW.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, protocol.ErrClosed) {
			t.Fatalf("err = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("call hung after the peer went away")
	}
}

// Two peers must not answer each other's error answers forever.
func TestNoErrorPingPong(t *testing.T) {
	var mu sync.Mutex
	var warnings int
	counting := slogCounter(&mu, &warnings)
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	a := protocol.NewConn(ar, aw, nil, protocol.ConnOptions{Logger: counting})
	b := protocol.NewConn(br, bw, nil, protocol.ConnOptions{Logger: counting})
	go a.Run(context.Background())
	go b.Run(context.Background())
	defer aw.Close()
	defer bw.Close()
	// A garbage line reaches b, which answers with an id-null error; a
	// must drop that answer, not answer it.
	if _, err := io.WriteString(aw, "garbage\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if warnings > 3 {
		t.Fatalf("%d warnings: the peers keep answering each other", warnings)
	}
}

// What a handler registers with OnReplied runs after its answer is written:
// a notification it sends then reaches the peer second, however fast it is.
func TestOnRepliedRunsAfterTheAnswer(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var c *protocol.Conn
	c = protocol.NewConn(inR, outW, func(ctx context.Context, method string, _ json.RawMessage) (any, error) {
		protocol.OnReplied(ctx, func() { c.Notify("started", map[string]string{"run": "r1"}) })
		time.Sleep(20 * time.Millisecond) // time enough for an early notification to overtake
		return map[string]string{"run": "r1"}, nil
	}, protocol.ConnOptions{})
	done := make(chan struct{})
	go func() { c.Run(context.Background()); close(done) }()
	t.Cleanup(func() { inW.Close(); outR.Close(); <-done })
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"start"}`+"\n")
	sc := bufio.NewScanner(outR)
	var got []string
	for len(got) < 2 && sc.Scan() {
		got = append(got, sc.Text())
	}
	if len(got) != 2 || !strings.Contains(got[0], `"id":1`) || !strings.Contains(got[1], `"method":"started"`) {
		t.Fatalf("lines, in order: %q", got)
	}
	// Outside a handler, fn runs at once.
	ran := false
	protocol.OnReplied(context.Background(), func() { ran = true })
	if !ran {
		t.Error("OnReplied outside a handler did not run fn")
	}
}

// TestHandlerPanicIsAnInternalError: a bug in one request's handler is
// that request's error; the connection goes on serving.
func TestHandlerPanicIsAnInternalError(t *testing.T) {
	// fakeServer leaves MCPReconnect unimplemented: calling it panics.
	ui, _ := pair(t, nil, protocol.ServerHandler(&fakeServer{}), protocol.ConnOptions{})
	srv := protocol.NewServerCaller(ui)
	ctx := context.Background()
	_, err := srv.MCPReconnect(ctx, &protocol.ServerParams{ID: "a"})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeInternalError || !strings.Contains(perr.Message, "mcp.reconnect") {
		t.Fatalf("panicking handler: err = %v", err)
	}
	if got, err := srv.MCPGet(ctx, &protocol.ServerParams{ID: "a"}); err != nil || got.Server.ID != "a" {
		t.Errorf("after the panic: %+v, %v", got, err)
	}
}
