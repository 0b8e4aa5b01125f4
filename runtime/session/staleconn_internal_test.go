package session

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// resetPeer is an HTTP/1.1 peer on loopback that answers the first
// answered requests of each connection and resets (RST) a connection on
// the request after them, as a restarted server's kernel answers a
// connection it forgot. answers[i] is how many requests connection i
// answers before its reset; connections past the list answer everything.
type resetPeer struct {
	ln       net.Listener
	answers  []int
	requests atomic.Int32
}

func startResetPeer(t *testing.T, answers ...int) *resetPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &resetPeer{ln: ln, answers: answers}
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			limit := -1
			if i < len(answers) {
				limit = answers[i]
			}
			go p.serve(c, limit)
		}
	}()
	return p
}

func (p *resetPeer) serve(c net.Conn, limit int) {
	defer c.Close()
	br := bufio.NewReader(c)
	for n := 0; ; n++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		p.requests.Add(1)
		if n == limit {
			_ = c.(*net.TCPConn).SetLinger(0)
			return // a reset, no byte of an answer
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
	}
}

func (p *resetPeer) post(t *testing.T, c *http.Client) error {
	t.Helper()
	resp, err := c.Post("http://"+p.ln.Addr().String()+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// A POST that meets a dead pooled connection (answered once, then reset
// on the next request, as after a sleep through a server restart) is sent
// once more on a new connection and succeeds.
func TestDeadPooledConnectionSentAgain(t *testing.T) {
	p := startResetPeer(t, 1)
	o := &Options{ID: "s", URL: "http://" + p.ln.Addr().String() + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}
	c, _ := httpClientFor(o)
	if err := p.post(t, c); err != nil {
		t.Fatal(err)
	}
	if err := p.post(t, c); err != nil {
		t.Fatalf("POST on a dead pooled connection: %v", err)
	}
	if n := p.requests.Load(); n != 3 {
		t.Errorf("%d requests reached the peer, want 3 (one lost to the reset, sent again once)", n)
	}
}

// A request whose new connection fails is not sent again: the server may
// have seen it, and nothing says a sleep killed the connection.
func TestFreshConnectionFailureNotRepeated(t *testing.T) {
	p := startResetPeer(t, 0, 0)
	o := &Options{ID: "s", URL: "http://" + p.ln.Addr().String() + "/mcp", HTTPClient: &http.Client{Transport: &http.Transport{}}}
	c, _ := httpClientFor(o)
	if err := p.post(t, c); err == nil {
		t.Fatal("a reset on a new connection succeeded")
	}
	time.Sleep(100 * time.Millisecond)
	if n := p.requests.Load(); n != 1 {
		t.Errorf("%d requests reached the peer, want 1", n)
	}
}
