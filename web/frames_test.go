package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// An app's HTML is served from the app listener (another origin), under a
// CSP built from what it declared: sandboxed, framable only by the page, no
// network beyond the declared origins, and declared "origins" that would
// smuggle directives are left out and reported.
func TestAppFrameIsServedFromAnotherOriginUnderItsCSP(t *testing.T) {
	s, _ := start(t, echoRuntime)
	c := login(t, s)
	body := `{"html":"<p>app</p>","csp":{"connect_domains":["https://api.example.com","https://x.example; script-src *"],"resource_domains":["https://cdn.example.com"]}}`
	resp := do(t, "POST", base(s)+"/api/frame", c, body, nil)
	var a frameAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || a.Error != "" {
		t.Fatalf("register: %d %v %+v", resp.StatusCode, err, a)
	}
	fu, _ := url.Parse(a.URL)
	pu, _ := url.Parse(s.URL())
	if fu.Host == pu.Host || fu.Hostname() != "127.0.0.1" {
		t.Fatalf("the frame %s is served from the page's origin %s", a.URL, pu.Host)
	}
	if len(a.Ignored) != 1 || !strings.Contains(a.Ignored[0], "script-src *") {
		t.Errorf("ignored: %q", a.Ignored)
	}
	// No cookie: a sandboxed frame has none to send.
	fr := do(t, "GET", a.URL, nil, "", nil)
	html, _ := io.ReadAll(fr.Body)
	if fr.StatusCode != http.StatusOK || string(html) != "<p>app</p>" {
		t.Fatalf("frame: %d %q", fr.StatusCode, html)
	}
	csp := fr.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "sandbox allow-scripts", "connect-src https://api.example.com;",
		"script-src 'unsafe-inline' https://cdn.example.com;", "frame-src 'none'", "frame-ancestors http://127.0.0.1:" + pu.Port()} {
		if !strings.Contains(csp, want) {
			t.Errorf("frame CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "x.example") || strings.Contains(csp, "allow-same-origin") {
		t.Errorf("frame CSP %q", csp)
	}
	// Nothing but /frame/ on the app listener, nothing under a foreign
	// Host, and the page's listener does not serve frames.
	for _, target := range []string{"http://" + fu.Host + "/", "http://" + fu.Host + "/api/events", "http://" + fu.Host + "/frame/guess"} {
		if r := do(t, "GET", target, c, "", nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", target, r.StatusCode)
		}
	}
	if r := do(t, "GET", a.URL, nil, "", map[string]string{"Host": "evil.example:" + fu.Port()}); r.StatusCode != http.StatusForbidden {
		t.Errorf("frame under a foreign Host: %d, want 403", r.StatusCode)
	}
	if r := do(t, "GET", base(s)+fu.Path, c, "", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("the page listener served a frame: %d", r.StatusCode)
	}
}

// Without a declared CSP an app gets no network at all.
func TestAppPolicyDefaultsToNoNetwork(t *testing.T) {
	p, ignored := appPolicy(nil, "http://127.0.0.1:1")
	for _, want := range []string{"connect-src 'none'", "frame-src 'none'", "base-uri 'none'", "form-action 'none'", "script-src 'unsafe-inline';"} {
		if !strings.Contains(p, want) {
			t.Errorf("%q lacks %q", p, want)
		}
	}
	if len(ignored) != 0 {
		t.Errorf("ignored %q", ignored)
	}
}

// The app documents kept are bounded in number and size: the oldest go.
func TestFramesAreBounded(t *testing.T) {
	defer func(b int) { maxFrameBytes = b }(maxFrameBytes)
	maxFrameBytes = 1 << 20
	s, _ := start(t, echoRuntime)
	c := login(t, s)
	var first string
	big := strings.Repeat("x", 64<<10)
	for i := range 20 {
		resp := do(t, "POST", base(s)+"/api/frame", c, `{"html":"`+big+`"}`, nil)
		var a frameAnswer
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || a.URL == "" {
			t.Fatalf("register %d: %v %+v", i, err, a)
		}
		if i == 0 {
			first = a.URL
		}
	}
	s.frames.mu.Lock()
	n, total := len(s.frames.docs), s.frames.bytes
	s.frames.mu.Unlock()
	if total > maxFrameBytes || n != maxFrameBytes/(64<<10) {
		t.Errorf("%d documents, %d bytes kept (bound %d)", n, total, maxFrameBytes)
	}
	if r := do(t, "GET", first, nil, "", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("the oldest document is still served: %d", r.StatusCode)
	}
}
