package auth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Discovery follows URLs that the MCP server hands out (resource_metadata,
// authorization_servers, the endpoints in authorization server metadata).
// For a server on a public network none of them may lead to the user's own
// machine or network: a URL whose host is such an address is refused before
// any request, and the handler's HTTP client refuses to connect to such an
// address, so that a name resolving to 127.0.0.1 is caught too. The server's
// own host, the endpoints the user configured and Options.TrustedHosts are
// exempt; so are proxies, which the user configured (behind a proxy only the
// URLs can be checked). Options.AllowPrivateAddresses lifts the rule for a
// server.

// lookupTimeout bounds the DNS lookup that decides whether a server named
// by a host name is on a private network.
const lookupTimeout = 5 * time.Second

var (
	cgnat    = netip.MustParsePrefix("100.64.0.0/10")
	thisNet  = netip.MustParsePrefix("0.0.0.0/8")
	siteLoc  = netip.MustParsePrefix("fec0::/10")
	nat64    = netip.MustParsePrefix("64:ff9b::/96")
	bcast    = netip.MustParseAddr("255.255.255.255")
	loopback = netip.MustParseAddr("127.0.0.1")
)

// nonPublic reports whether ip is not a public unicast address: loopback,
// unspecified, private (RFC 1918, IPv6 ULA), CGNAT, link-local, site-local,
// multicast, broadcast, "this network", or an IPv4-mapped or NAT64 form of
// one of those.
func nonPublic(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:]))
	}
	return !ip.IsValid() || ip.IsUnspecified() || ip.IsLoopback() || ip.IsPrivate() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() || cgnat.Contains(ip) || thisNet.Contains(ip) ||
		siteLoc.Contains(ip) || ip == bcast
}

// hostAddr returns the address a URL host stands for without a lookup: an
// address literal, or loopback for "localhost" and its subdomains. ok is
// false for other names.
func hostAddr(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return loopback, true
	}
	a, err := netip.ParseAddr(h)
	return a, err == nil
}

// privateHost decides whether host is on a loopback or private network: an
// address literal in those ranges, "localhost", or a name all of whose
// addresses are. definite is false when a lookup failed, so that the answer
// is not remembered.
func privateHost(ctx context.Context, host string) (private, definite bool) {
	if a, ok := hostAddr(host); ok {
		return nonPublic(a), true
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return false, false
	}
	for _, a := range addrs {
		if !nonPublic(a) {
			return false, true
		}
	}
	return true, true
}

// netGuard holds what the address rule needs: which hosts are exempt and
// whether the server counts as private.
type netGuard struct {
	serverHost string
	decide     func(ctx context.Context) bool // Options.PrivateServer

	mu      sync.Mutex
	trusted map[string]bool // host:port, lower case
	known   bool            // private is decided
	private bool
}

func newNetGuard(o *Options) *netGuard {
	g := &netGuard{decide: o.PrivateServer, trusted: map[string]bool{}}
	if o.AllowPrivateAddresses {
		g.decide = func(context.Context) bool { return true } // the user lifted the rule
	}
	if u, err := url.Parse(o.ServerURL); err == nil {
		g.serverHost = u.Hostname()
		g.trusted[hostPort(u)] = true
	}
	for _, s := range []string{o.AuthorizationURL, o.TokenURL, o.RegistrationURL, o.IDPIssuer, o.IDPTokenURL} {
		if u, err := url.Parse(s); err == nil && s != "" && u.Host != "" {
			g.trusted[hostPort(u)] = true
		}
	}
	for _, hp := range o.TrustedHosts {
		g.trust(hp)
	}
	return g
}

// trust exempts host:port (as a dialer sees it) from the rule.
func (g *netGuard) trust(hp string) {
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		return
	}
	g.mu.Lock()
	g.trusted[net.JoinHostPort(strings.ToLower(host), port)] = true
	g.mu.Unlock()
}

func (g *netGuard) exempt(hp string) bool {
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.trusted[net.JoinHostPort(strings.ToLower(host), port)]
}

// serverPrivate reports whether the server counts as being on a private
// network, which lifts the rule.
func (g *netGuard) serverPrivate(ctx context.Context) bool {
	if g.decide != nil {
		return g.decide(ctx)
	}
	g.mu.Lock()
	if g.known {
		p := g.private
		g.mu.Unlock()
		return p
	}
	g.mu.Unlock()
	p, definite := privateHost(ctx, g.serverHost)
	if definite {
		g.mu.Lock()
		g.known, g.private = true, p
		g.mu.Unlock()
	}
	return p
}

// checkURL applies checkEndpoint's scheme rule to a URL the server handed
// out, and refuses one whose host is a non-public address (literal or
// localhost) unless it is exempt or the server is private itself. Other
// names are checked when connecting.
func (g *netGuard) checkURL(ctx context.Context, raw string) error {
	if err := checkEndpoint(raw); err != nil {
		return err
	}
	u, _ := url.Parse(raw)
	a, ok := hostAddr(u.Hostname())
	if !ok || !nonPublic(a) || g.exempt(hostPort(u)) || g.serverPrivate(ctx) {
		return nil
	}
	return fmt.Errorf("URL %s: %w", showURL(raw), ErrPrivateAddress)
}

// client returns a copy of c whose connections obey the rule. A Transport
// that is not an *http.Transport cannot be guarded; then c is returned and
// only URLs are checked.
func (g *netGuard) client(c *http.Client) *http.Client {
	var t *http.Transport
	switch rt := c.Transport.(type) {
	case nil:
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			t = dt.Clone()
		} else {
			t = &http.Transport{Proxy: http.ProxyFromEnvironment}
		}
	case *http.Transport:
		t = rt.Clone()
	default:
		return c
	}
	if proxy := t.Proxy; proxy != nil {
		t.Proxy = func(r *http.Request) (*url.URL, error) {
			u, err := proxy(r)
			if u != nil {
				g.trust(hostPort(u)) // the user's proxy: connecting to it is fine
			}
			return u, err
		}
	}
	dial := t.DialContext
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if g.exempt(addr) || g.serverPrivate(ctx) {
			if dial == nil {
				return (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext(ctx, network, addr)
			}
			return dial(ctx, network, addr)
		}
		if dial == nil {
			// Refused before connecting, and other addresses of the
			// name are still tried.
			d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: refuseNonPublic}
			return d.DialContext(ctx, network, addr)
		}
		return checkConn(dial(ctx, network, addr))
	}
	if dialTLS := t.DialTLSContext; dialTLS != nil {
		t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if g.exempt(addr) || g.serverPrivate(ctx) {
				return dialTLS(ctx, network, addr)
			}
			return checkConn(dialTLS(ctx, network, addr))
		}
	}
	gc := *c
	gc.Transport = t
	return &gc
}

// refuseNonPublic is a net.Dialer Control function: it refuses to connect
// to a non-public address.
func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || nonPublic(ap.Addr()) {
		return fmt.Errorf("connecting to %s: %w", address, ErrPrivateAddress)
	}
	return nil
}

// checkConn closes a connection that a custom dialer made to a non-public
// address (before anything was sent on it).
func checkConn(conn net.Conn, err error) (net.Conn, error) {
	if err != nil {
		return nil, err
	}
	ap, perr := netip.ParseAddrPort(conn.RemoteAddr().String())
	if perr != nil || nonPublic(ap.Addr()) {
		addr := conn.RemoteAddr().String()
		conn.Close()
		return nil, fmt.Errorf("connecting to %s: %w", addr, ErrPrivateAddress)
	}
	return conn, nil
}
