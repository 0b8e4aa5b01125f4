// Package netproxy is the filtering HTTP proxy through which a sandboxed
// stdio server whose policy lists "host:port" pairs reaches the network.
// The OS sandbox (Landlock, Seatbelt) matches TCP ports only; the host
// starts one proxy per server on 127.0.0.1, points the server's
// HTTPS_PROXY and HTTP_PROXY at it and lets the server connect to the
// proxy's port alone. The proxy then holds the server to the listed host
// names: it answers CONNECT host:port and absolute-URI HTTP requests
// (GET http://host/...) only for listed pairs, resolves names itself and
// refuses names that resolve to loopback, private or link-local addresses
// (no DNS rebinding into the LAN) unless the list names the address
// literally. See docs/SANDBOX.md.
package netproxy

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// A Rule is one entry of the list: Host is a name, an IP address or
// "*.example.com" (any name under example.com, not example.com itself);
// Port is a number or "*".
type Rule struct {
	Host string
	Port string
}

// ParseRules parses "host:port" entries.
func ParseRules(list []string) ([]Rule, error) {
	rules := make([]Rule, 0, len(list))
	for _, hp := range list {
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" {
			return nil, fmt.Errorf("netproxy: want \"host:port\", got %q", hp)
		}
		if port != "*" {
			if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
				return nil, fmt.Errorf("netproxy: bad port in %q", hp)
			}
		}
		rules = append(rules, Rule{Host: normHost(host), Port: port})
	}
	return rules, nil
}

// normHost lowercases a host, drops a trailing dot and writes an IP
// address in its canonical form (IPv4-mapped IPv6 as IPv4).
func normHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().String()
	}
	return h
}

// hostMatches reports whether rule host r admits host h (both normalised).
func hostMatches(r, h string) bool {
	if strings.HasPrefix(r, "*.") {
		return strings.HasSuffix(h, r[1:]) && len(h) > len(r)-1
	}
	return r == h
}

// Match returns the first rule that admits host:port, and whether one does.
func Match(rules []Rule, host, port string) (Rule, bool) {
	h := normHost(host)
	for _, r := range rules {
		if (r.Port == "*" || r.Port == port) && hostMatches(r.Host, h) {
			return r, true
		}
	}
	return Rule{}, false
}

// public reports an address a listed name may resolve to: not loopback,
// private, link-local, unspecified or multicast, nor in the shared
// (100.64.0.0/10) or benchmarking ranges.
func public(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range []netip.Prefix{
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("198.18.0.0/15"),
		netip.MustParsePrefix("0.0.0.0/8"),
	} {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// permitted reports whether the proxy may dial a, reached through rule r:
// public addresses always; others only when r names a literally, or r is
// "localhost" and a is a loopback address.
func permitted(r Rule, a netip.Addr) bool {
	a = a.Unmap()
	if public(a) {
		return true
	}
	if lit, err := netip.ParseAddr(r.Host); err == nil {
		return lit.Unmap() == a
	}
	return r.Host == "localhost" && a.IsLoopback()
}
