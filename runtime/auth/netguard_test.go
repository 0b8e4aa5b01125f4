package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingServer answers everything with a PRM-like document and counts
// the requests it gets: a service on the user's machine that a hostile
// server would like the host to reach.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":"https://203.0.113.7/mcp","authorization_servers":["http://%s"]}`, r.Host)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func challengeFor(server, prm string) (*http.Request, *http.Response) {
	req, _ := http.NewRequest(http.MethodPost, server, nil)
	resp := &http.Response{
		StatusCode: http.StatusUnauthorized,
		Header:     http.Header{"Www-Authenticate": {fmt.Sprintf(`Bearer resource_metadata="%s"`, prm)}},
		Body:       http.NoBody,
	}
	return req, resp
}

// With the real default policy, a server on a public address (TEST-NET-3
// here) cannot point discovery at loopback, link-local or private
// addresses, in any spelling, nor at a non-http(s) scheme (issue 11 item 5).
func TestDiscoveryRefusesPrivateAddressesForAPublicServer(t *testing.T) {
	local, hits := countingServer(t)
	port := local.URL[strings.LastIndex(local.URL, ":")+1:]
	const server = "https://203.0.113.7/mcp"
	p := &testPrompter{}
	h, err := New(Options{ServerID: "public", ServerURL: server, Prompter: p, HTTPClient: &http.Client{Timeout: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	for _, prm := range []string{
		local.URL + "/.well-known/oauth-protected-resource",
		"http://localhost:" + port + "/prm",
		"http://[::1]:" + port + "/prm",
		"https://[::ffff:127.0.0.1]:" + port + "/prm",
		"https://10.1.2.3/prm",
		"https://172.16.0.1/prm",
		"https://192.168.1.1/prm",
		"https://100.64.0.1/prm",
		"https://169.254.169.254/latest/meta-data",
		"https://[fd00::1]/prm",
		"https://[fe80::1]/prm",
		"https://0.0.0.0:" + port + "/prm",
	} {
		req, resp := challengeFor(server, prm)
		err := h.Authorize(context.Background(), req, resp)
		if !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("resource_metadata %s: %v, want ErrPrivateAddress", prm, err)
		}
	}
	for _, prm := range []string{"file:///etc/passwd", "ftp://203.0.113.8/prm", "gopher://203.0.113.8/"} {
		req, resp := challengeFor(server, prm)
		if err := h.Authorize(context.Background(), req, resp); err == nil || !strings.Contains(err.Error(), "scheme") {
			t.Errorf("resource_metadata %s: %v, want the scheme refused", prm, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the local service got %d requests", n)
	}
	if p.logins.Load() != 0 {
		t.Error("a login started")
	}
}

// The address check happens when connecting, so a name that resolves to a
// loopback address is refused too, not only an address literal.
func TestDiscoveryDialerRefusesNamesResolvingToLoopback(t *testing.T) {
	local, hits := countingServer(t)
	u, _ := url.Parse(local.URL)
	h, err := New(Options{ServerID: "public", ServerURL: "https://203.0.113.7/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.httpClient.Get("http://localhost:" + u.Port() + "/anything")
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrPrivateAddress) {
		t.Errorf("GET via localhost: %v, want ErrPrivateAddress", err)
	}
	if hits.Load() != 0 {
		t.Error("the request reached the local service")
	}
}

// publicOpts makes the loopback test servers stand in for a public server:
// the server does not count as private, and only the hosts named count as
// its own network.
func publicOpts(hosts ...string) func(*Options) {
	return func(o *Options) {
		o.PrivateServer = func(context.Context) bool { return false }
		for _, h := range hosts {
			u, _ := url.Parse(h)
			o.TrustedHosts = append(o.TrustedHosts, u.Host)
		}
	}
}

// Every URL in metadata is held to the rule: an authorization server, and
// the token, registration and authorization endpoints of a trusted one.
// With the default policy the same loopback setup works, because the server
// is on loopback too.
func TestMetadataURLsOnPrivateAddressesRefused(t *testing.T) {
	local, hits := countingServer(t)
	for _, c := range []struct {
		name string
		mod  func(as *testAS, rs *testRS)
	}{
		{"authorization server", func(as *testAS, rs *testRS) { rs.prm["authorization_servers"] = []string{local.URL} }},
		{"token endpoint", func(as *testAS, rs *testRS) { as.meta = map[string]any{"token_endpoint": local.URL + "/token"} }},
		{"registration endpoint", func(as *testAS, rs *testRS) {
			as.meta = map[string]any{"registration_endpoint": local.URL + "/register"}
		}},
		{"authorization endpoint", func(as *testAS, rs *testRS) {
			as.meta = map[string]any{"authorization_endpoint": local.URL + "/authorize"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			as := newTestAS(t)
			rs := newTestRS(t, as)
			c.mod(as, rs)
			p := &testPrompter{}
			h := newHandler(t, rs, p, nil, publicOpts(rs.srv.URL, as.URL()))
			req, resp := unauthorized(rs, 401, "", "")
			err := h.Authorize(context.Background(), req, resp)
			if !errors.Is(err, ErrPrivateAddress) {
				t.Fatalf("Authorize: %v, want ErrPrivateAddress", err)
			}
			if p.logins.Load() != 0 || as.count("/register") != 0 || hits.Load() != 0 {
				t.Errorf("went on: %d logins, %d registrations, %d requests to the local service", p.logins.Load(), as.count("/register"), hits.Load())
			}
			// The default: the server is on loopback itself, so its
			// authorization server may be too.
			as2 := newTestAS(t)
			rs2 := newTestRS(t, as2)
			h2 := newHandler(t, rs2, &testPrompter{}, nil, nil)
			req, resp = unauthorized(rs2, 401, "", "")
			if err := h2.Authorize(context.Background(), req, resp); err != nil {
				t.Errorf("a server on loopback with its authorization server on loopback: %v", err)
			}
		})
	}
}

func TestNonPublicRanges(t *testing.T) {
	for s, want := range map[string]bool{
		"127.0.0.1": true, "127.255.0.9": true, "::1": true, "10.0.0.1": true, "172.31.255.255": true,
		"192.168.0.1": true, "100.64.0.1": true, "100.127.255.254": true, "169.254.169.254": true,
		"fe80::1": true, "fd12:3456::1": true, "0.0.0.0": true, "::": true, "::ffff:10.0.0.1": true,
		"64:ff9b::7f00:1": true, "255.255.255.255": true, "224.0.0.1": true,
		"8.8.8.8": false, "203.0.113.7": false, "100.128.0.1": false, "172.32.0.1": false,
		"2001:4860:4860::8888": false, "::ffff:8.8.8.8": false,
	} {
		if got := nonPublic(netip.MustParseAddr(s)); got != want {
			t.Errorf("nonPublic(%s) = %v, want %v", s, got, want)
		}
	}
}

// The browser is only ever handed an https URL or an http URL on loopback.
func TestLoopbackRefusesToOpenOtherURLs(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "http://example.com/authorize", "http://10.0.0.1/authorize", "data:text/html,hi", "https:///nohost"} {
		opened := false
		lb := &Loopback{Open: func(context.Context, *LoginRequest) error { opened = true; return nil }, Timeout: 50 * time.Millisecond}
		uri, err := lb.RedirectURI(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = lb.Login(context.Background(), &LoginRequest{ServerID: "s", URL: u, RedirectURI: uri, State: "st"})
		if err == nil || opened {
			t.Errorf("%s: opened %v, error %v", u, opened, err)
		}
	}
}

// A server the user opted out of the address rule for (config
// oauth.allow_private_addresses) may point discovery and the login at
// loopback and private addresses although it counts as public.
func TestAllowPrivateAddressesLiftsTheRule(t *testing.T) {
	for _, allow := range []bool{false, true} {
		as := newTestAS(t)
		rs := newTestRS(t, as)
		p := &testPrompter{}
		h := newHandler(t, rs, p, nil, func(o *Options) {
			o.PrivateServer = func(context.Context) bool { return false }
			o.AllowPrivateAddresses = allow
		})
		err := h.Login(context.Background())
		switch {
		case !allow && !errors.Is(err, ErrPrivateAddress):
			t.Errorf("without the opt-out: %v, want ErrPrivateAddress", err)
		case !allow && (as.total() != 0 || p.logins.Load() != 0):
			t.Errorf("without the opt-out the authorization server got %d requests, %d logins", as.total(), p.logins.Load())
		case allow && err != nil:
			t.Errorf("with the opt-out: %v", err)
		case allow && currentToken(t, h) == "":
			t.Error("with the opt-out: no token")
		}
	}
}
