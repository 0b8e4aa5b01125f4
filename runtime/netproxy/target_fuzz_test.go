package netproxy

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// FuzzRequestTarget: whatever request line and header a server sends,
// the proxy either refuses it or names a destination that one of its
// rules admits: the listed host exactly (any case, a trailing dot) on the
// listed port, or a name under a wildcard's domain.
func FuzzRequestTarget(f *testing.F) {
	for _, s := range []string{
		"CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n",
		"GET http://www.example.org/x HTTP/1.1\r\nHost: www.example.org\r\n\r\n",
		"CONNECT API.EXAMPLE.COM.:443 HTTP/1.1\r\n\r\n",
		"CONNECT evil.example.com@api.example.com:443 HTTP/1.1\r\n\r\n",
		"GET http://api.example.com:443@evil.com/ HTTP/1.1\r\n\r\n",
	} {
		f.Add(s)
	}
	rules, err := ParseRules([]string{"api.example.com:443", "*.example.org:*"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return
		}
		host, port, _ := target(req)
		if host == "" {
			return
		}
		if _, ok := Match(rules, host, port); !ok {
			return
		}
		h := normHost(host)
		if !(h == "api.example.com" && port == "443") && !strings.HasSuffix(h, ".example.org") {
			t.Errorf("%q admitted as %q port %q", raw, host, port)
		}
	})
}
