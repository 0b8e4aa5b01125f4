package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connCounts are the TCP connections a server accepted and saw closed.
type connCounts struct{ opened, closed atomic.Int64 }

// connCountingServer is a go-sdk echo server over Streamable HTTP that
// counts the TCP connections it accepts and sees closed.
func connCountingServer(t *testing.T, opts *mcp.StreamableHTTPOptions) (string, *connCounts) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "conns", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	conns := new(connCounts)
	srv := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			conns.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			conns.closed.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, conns
}

// TestCallsReuseConnections checks that steady calls close no TCP
// connection and open next to none: the pool may grow by one when a call
// starts while the previous one's stream is still ending (the bare go-sdk
// client does the same), and 8 calls at a time may need up to twice as
// many connections, but none is thrown away. A call's answer arrives on an
// event stream whose end the transport still reads after the caller has
// its result; if the end of the call's context aborts that read, the
// connection is closed and the next call opens a new one.
func TestCallsReuseConnections(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		{"event-stream", nil},
		{"json", &mcp.StreamableHTTPOptions{JSONResponse: true}},
		{"stateless", &mcp.StreamableHTTPOptions{Stateless: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, conns := connCountingServer(t, tc.opts)
			s, err := session.Connect(context.Background(), session.Options{ID: "conns", URL: url})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			args := json.RawMessage(`{"text":"hi"}`)
			call := func() {
				if _, err := s.CallTool(context.Background(), "echo", args); err != nil {
					t.Error(err)
				}
			}
			call()
			const calls = 300
			opened, closed := conns.opened.Load(), conns.closed.Load()
			for range calls {
				call()
			}
			if n := conns.closed.Load() - closed; n != 0 {
				t.Errorf("%d sequential calls closed %d connections; want 0", calls, n)
			}
			if n := conns.opened.Load() - opened; n > 2 {
				t.Errorf("%d sequential calls opened %d new connections; want at most 2", calls, n)
			}

			const workers = 8
			opened, closed = conns.opened.Load(), conns.closed.Load()
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for range calls / workers {
						call()
					}
				})
			}
			wg.Wait()
			if n := conns.closed.Load() - closed; n != 0 {
				t.Errorf("%d calls %d at a time closed %d connections; want 0", calls, workers, n)
			}
			if n := conns.opened.Load() - opened; n > 2*workers {
				t.Errorf("%d calls %d at a time opened %d new connections; want at most %d", calls, workers, n, 2*workers)
			}
		})
	}
}

// TestStreamHeldOpenAfterAnswerIsCut checks the other side of connection
// reuse: a server that answers a call on its event stream and then keeps
// the stream open does not hold the exchange (a connection and the SDK's
// reader) forever once the caller has its result.
func TestStreamHeldOpenAfterAnswerIsCut(t *testing.T) {
	released := make(chan struct{})
	h := newHostile(t, false, nil, func(w http.ResponseWriter, r *http.Request, msg rpcMsg) bool {
		if msg.Method != "tools/call" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"hi"}]}}`+"\n\n")
		w.(http.Flusher).Flush()
		select { // hold the stream open
		case <-r.Context().Done():
			close(released)
		case <-time.After(time.Minute):
		}
		return true
	})
	s, err := session.Connect(context.Background(), session.Options{ID: "hostile", URL: h.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(context.Background(), "echo", nil)
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("call: %v, %+v", err, res)
	}
	select {
	case <-released:
	case <-time.After(30 * time.Second):
		t.Fatal("the stream held open after the answer was never cut")
	}
}

// TestCancelBeforeAnswerStopsRequest checks that a call's cancellation
// still ends its HTTP request at once while the answer has not come.
func TestCancelBeforeAnswerStopsRequest(t *testing.T) {
	ts := newTestServer(t)
	s, err := session.Connect(context.Background(), session.Options{ID: "t", URL: ts.url()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := s.CallTool(ctx, "block", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
	select {
	case <-ts.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's handler was never cancelled")
	}
}

// TestExtensionCallsReuseConnections checks the same for Session.Call,
// whose POSTs are the session's own: an answer on an event stream is read
// to its end, not dropped with the connection.
func TestExtensionCallsReuseConnections(t *testing.T) {
	url, conns := connCountingServer(t, nil)
	s, err := session.Connect(context.Background(), session.Options{ID: "conns", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	call := func() {
		if err := s.Call(context.Background(), "ping", struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	call()
	closed := conns.closed.Load()
	for range 100 {
		call()
	}
	// The ends of the streams are read in the background: let them finish.
	time.Sleep(100 * time.Millisecond)
	if n := conns.closed.Load() - closed; n != 0 {
		t.Errorf("100 extension calls closed %d connections; want 0", n)
	}
}
