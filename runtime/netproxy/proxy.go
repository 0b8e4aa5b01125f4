package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Limits of a client's request and of the proxy's work on it.
const (
	// MaxHeaderBytes bounds a request's line and headers.
	MaxHeaderBytes = 16 << 10
	// HeaderTimeout bounds reading a request's line and headers.
	HeaderTimeout = 10 * time.Second
	// DialTimeout bounds resolving and connecting to the destination.
	DialTimeout = 10 * time.Second
	// maxConns bounds the connections served at once.
	maxConns = 64
)

// A Proxy is a running filtering proxy; Close stops it.
type Proxy struct {
	ln    net.Listener
	rules []Rule
	log   func(string)
	// resolve looks a name up (net.DefaultResolver's by default).
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	slots   chan struct{}

	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// Start starts a proxy for list ("host:port" entries, see [Rule]) on
// 127.0.0.1 at a free port. log, when set, receives one line per refusal.
func Start(list []string, log func(string)) (*Proxy, error) {
	return start(list, log, func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	})
}

// start is Start with the resolver given (tests use a fake one).
func start(list []string, log func(string), resolve func(context.Context, string) ([]netip.Addr, error)) (*Proxy, error) {
	rules, err := ParseRules(list)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netproxy: listening on 127.0.0.1: %w", err)
	}
	if log == nil {
		log = func(string) {}
	}
	p := &Proxy{ln: ln, rules: rules, log: log, resolve: resolve, slots: make(chan struct{}, maxConns), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr is the proxy's address, "127.0.0.1:port".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Port is the proxy's TCP port.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Close stops the proxy: no new connections, and the open ones (tunnels
// included) are closed. It waits for their goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

// track records c as open (false once the proxy is closed); untrack forgets it.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		select {
		case p.slots <- struct{}{}:
		default:
			c.Close() // too many at once
			continue
		}
		if !p.track(c) {
			<-p.slots
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer func() { <-p.slots }()
			defer p.untrack(c)
			p.handle(c)
		}()
	}
}

// handle serves one client connection: one request, then a tunnel
// (CONNECT) or the one forwarded exchange (absolute-URI HTTP).
func (p *Proxy) handle(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(HeaderTimeout))
	lr := &io.LimitedReader{R: c, N: MaxHeaderBytes}
	br := bufio.NewReaderSize(lr, 4096)
	req, err := http.ReadRequest(br)
	if err != nil {
		if lr.N <= 0 {
			p.log(fmt.Sprintf("[host: network proxy: request header over %d bytes refused]", MaxHeaderBytes))
			reply(c, http.StatusRequestHeaderFieldsTooLarge, "request header too large")
		} else {
			reply(c, http.StatusBadRequest, "bad request")
		}
		return
	}
	lr.N = math.MaxInt64 // the header is read; bodies and tunnels are not bounded
	_ = c.SetReadDeadline(time.Time{})
	host, port, what := target(req)
	if host == "" {
		reply(c, http.StatusBadRequest, "want CONNECT host:port or an absolute http:// URI")
		return
	}
	rule, ok := Match(p.rules, host, port)
	if !ok {
		// Logged before the answer, so that a client that saw the 403
		// finds the line.
		p.log(fmt.Sprintf("[host: network proxy refused %s %q: not in the sandbox's network list]", what, net.JoinHostPort(host, port)))
		reply(c, http.StatusForbidden, "not in the sandbox's network list")
		return
	}
	up, err := p.dial(rule, host, port)
	if err != nil {
		p.log(fmt.Sprintf("[host: network proxy refused %s %q: %v]", what, net.JoinHostPort(host, port), err))
		reply(c, http.StatusForbidden, err.Error())
		return
	}
	if !p.track(up) {
		reply(c, http.StatusServiceUnavailable, "proxy closing")
		return
	}
	defer p.untrack(up)
	if req.Method == http.MethodConnect {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			return
		}
		pipe(c, br, up)
		return
	}
	// One forwarded request; the answer ends the connection.
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive"} {
		req.Header.Del(h)
	}
	req.Close = true
	if err := req.Write(up); err != nil {
		return
	}
	_, _ = io.Copy(c, up)
}

// target is the destination of req: host, port and the method named in
// log lines; host is "" for a request the proxy does not serve.
func target(req *http.Request) (host, port, what string) {
	if req.Method == http.MethodConnect {
		h, p, err := net.SplitHostPort(req.RequestURI)
		if err != nil || h == "" || p == "" {
			return "", "", ""
		}
		return h, p, "CONNECT"
	}
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
		return "", "", ""
	}
	port = req.URL.Port()
	if port == "" {
		port = "80"
	}
	return req.URL.Hostname(), port, req.Method + " http://"
}

// dial resolves host (admitted by rule) and connects to the first address
// the rule permits (see permitted).
func (p *Proxy) dial(rule Rule, host, port string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DialTimeout)
	defer cancel()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = p.resolve(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: %w", host, err)
		}
	}
	var lastErr error
	for _, a := range addrs {
		if !permitted(rule, a) {
			lastErr = fmt.Errorf("%s resolves to %s, a local or private address the list does not name", host, a)
			continue
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		lastErr = fmt.Errorf("connecting to %s: %w", host, err)
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("%s has no address", host)
	}
	return nil, lastErr
}

// pipe copies both ways between the client (read through br, which may
// hold bytes sent after the request) and up until both directions end.
func pipe(c net.Conn, br *bufio.Reader, up net.Conn) {
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, br)
		closeWrite(up)
		close(done)
	}()
	_, _ = io.Copy(c, up)
	closeWrite(c)
	<-done
}

// closeWrite half-closes a TCP connection (closes others).
func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	c.Close()
}

// reply writes a short plain-text answer that ends the exchange.
func reply(c net.Conn, code int, msg string) {
	_ = c.SetWriteDeadline(time.Now().Add(HeaderTimeout))
	body := "netproxy: " + msg + "\n"
	_, _ = fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		code, http.StatusText(code), len(body), body)
}
