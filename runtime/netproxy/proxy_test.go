package netproxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// echo starts a loopback listener on addr ("127.0.0.1:0") that echoes
// what it reads; it returns its port.
func echo(t *testing.T, addr string) string {
	t.Helper()
	ln, err := net.Listen("tcp4", addr)
	if err != nil {
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatalf("listening on %s: %v", addr, err)
		}
		t.Skipf("SKIPPED: listening on %s: %v", addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// logs collects the proxy's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }
func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func startProxy(t *testing.T, list ...string) (*Proxy, *logs) {
	t.Helper()
	l := &logs{}
	p, err := Start(list, l.add)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, l
}

// connect sends CONNECT target through p and returns the connection and
// the status code.
func connect(t *testing.T, p *Proxy, target string) (net.Conn, *bufio.Reader, int) {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.Addr(), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	return c, br, resp.StatusCode
}

func TestConnectAllowedTunnels(t *testing.T) {
	port := echo(t, "127.0.0.1:0")
	p, _ := startProxy(t, "127.0.0.1:"+port)
	c, br, code := connect(t, p, "127.0.0.1:"+port)
	if code != http.StatusOK {
		t.Fatalf("CONNECT to the listed pair: %d", code)
	}
	if _, err := io.WriteString(c, "ping through the tunnel\n"); err != nil {
		t.Fatal(err)
	}
	line, err := br.ReadString('\n')
	if err != nil || line != "ping through the tunnel\n" {
		t.Fatalf("echo through the tunnel: %q, %v", line, err)
	}
}

func TestConnectUnlistedRefused(t *testing.T) {
	allowed := echo(t, "127.0.0.1:0")
	other := echo(t, "127.0.0.1:0")
	p, l := startProxy(t, "127.0.0.1:"+allowed)
	for _, target := range []string{"127.0.0.1:" + other, "127.0.0.2:" + allowed, "localhost:" + allowed} {
		if _, _, code := connect(t, p, target); code != http.StatusForbidden {
			t.Errorf("CONNECT %s: %d, want 403", target, code)
		}
		if !strings.Contains(l.String(), "refused CONNECT \""+target+"\"") {
			t.Errorf("no log line for %s:\n%s", target, l)
		}
	}
}

func TestPlainHTTPChecked(t *testing.T) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello "+r.URL.Path)
	}), ReadHeaderTimeout: time.Second}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	p, _ := startProxy(t, "127.0.0.1:"+port)
	proxyURL, _ := http.NewRequest("GET", "http://"+p.Addr(), nil)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL.URL)}}
	resp, err := client.Get("http://127.0.0.1:" + port + "/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "hello /x" {
		t.Fatalf("listed GET: %d %q", resp.StatusCode, b)
	}
	resp, err = client.Get("http://127.0.0.2:" + port + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("unlisted GET: %d, want 403", resp.StatusCode)
	}
}

func TestMatchWildcards(t *testing.T) {
	rules, err := ParseRules([]string{"*.example.com:443", "api.test:*", "[::1]:8080"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host, port string
		want       bool
	}{
		{"a.example.com", "443", true},
		{"A.B.Example.COM.", "443", true},
		{"example.com", "443", false},
		{"evilexample.com", "443", false},
		{"a.example.com", "80", false},
		{"api.test", "1", true},
		{"api.test", "65535", true},
		{"x.api.test", "1", false},
		{"::1", "8080", true},
		{"::1", "8081", false},
	} {
		if _, got := Match(rules, c.host, c.port); got != c.want {
			t.Errorf("Match(%s, %s) = %v, want %v", c.host, c.port, got, c.want)
		}
	}
	if _, err := ParseRules([]string{"no-port"}); err == nil {
		t.Error("an entry without a port was accepted")
	}
}

func TestHeaderBound(t *testing.T) {
	port := echo(t, "127.0.0.1:0")
	p, _ := startProxy(t, "127.0.0.1:"+port)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() {
		_, _ = io.WriteString(c, "CONNECT 127.0.0.1:"+port+" HTTP/1.1\r\nX-Big: "+strings.Repeat("a", 2*MaxHeaderBytes)+"\r\n\r\n")
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("oversized header: %d, want 431", resp.StatusCode)
	}
}

// A listed name that resolves to a private or loopback address is
// refused (DNS rebinding); the address named literally is not.
func TestRebindingRefused(t *testing.T) {
	port := echo(t, "127.0.0.1:0")
	// A fake resolver: no name is looked up for real.
	l := &logs{}
	p, err := start([]string{"rebind.test:" + port, "localhost:" + port}, l.add, func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, _, code := connect(t, p, "rebind.test:"+port); code != http.StatusForbidden {
		t.Errorf("a listed name resolving to loopback: %d, want 403", code)
	}
	if !strings.Contains(l.String(), "local or private address") {
		t.Errorf("log:\n%s", l)
	}
	if _, _, code := connect(t, p, "localhost:"+port); code != http.StatusOK {
		t.Errorf("localhost listed by name: %d, want 200", code)
	}
}
