package e2e_test

import (
	"net"
	"strings"
	"testing"
)

// A server whose policy lists one loopback host:port reaches it only
// through the host's filtering proxy (HTTPS_PROXY): the sandbox lets it
// connect to the proxy's port alone, and the proxy answers 403 for a
// pair the list does not hold.
func TestSandboxNetworkProxy(t *testing.T) {
	s := newSandboxHome(t)
	other := loopbackListener(t)
	s.configure(t, `{"network":[`+quote(s.listener)+`]}`)
	s.expect(t, false, "proxy", s.listener)
	if out := s.attack(t, "proxy", other); !strings.Contains(out, "403") {
		t.Errorf("an unlisted pair through the proxy:\n%s", out)
	}
	s.expect(t, true, "connect", other)      // Landlock: not the proxy's port
	s.expect(t, true, "connect", s.listener) // the listed pair too: only through the proxy
	s.expect(t, true, "child", "connect "+other)
	s.expect(t, false, "child", "proxy "+s.listener)
	out, code := s.host(t, "mcp", "get", "probe")
	if code != 0 || !strings.Contains(out, "network via proxy: "+s.listener) {
		t.Errorf("mcp get: exit %d:\n%s", code, out)
	}
}

// loopbackListener accepts and closes connections on 127.0.0.1.
func loopbackListener(t *testing.T) string { return acceptAndClose(t, "tcp4", "127.0.0.1:0") }

// acceptAndClose listens on network and address, accepting and closing
// every connection until the test ends, and returns the address.
func acceptAndClose(t *testing.T, network, address string) string {
	t.Helper()
	ln, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}
