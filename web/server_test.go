package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// fakeRuntime is the runtime end of a protocol connection: it answers the
// bridge's requests with handle and can ask the UI (the bridge) things.
type fakeRuntime struct {
	conn *protocol.Conn
}

// start serves a bridge on real loopback listeners, joined to a fake
// runtime whose requests are answered by handle.
func start(t *testing.T, handle protocol.Handler) (*Server, *fakeRuntime) {
	t.Helper()
	b := NewBridge()
	uiIn, rtOut := io.Pipe()
	rtIn, uiOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ui := protocol.NewConn(uiIn, uiOut, b.Handler(), protocol.ConnOptions{})
	rt := protocol.NewConn(rtIn, rtOut, handle, protocol.ConnOptions{AnnounceAbandoned: true})
	go ui.Run(ctx)
	go rt.Run(ctx)
	b.Attach(ui, json.RawMessage(`{"protocol_version":"test","servers":[]}`))
	s, servers, err := Listen("", b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, srv := range servers {
			srv.Close()
		}
		cancel()
		uiOut.Close()
		rtOut.Close()
	})
	return s, &fakeRuntime{conn: rt}
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       10 * time.Second,
}

// login opens the printed URL and returns the session cookie.
func login(t *testing.T, s *Server) *http.Cookie {
	t.Helper()
	resp, err := noRedirect.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the printed URL answered %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, c := range resp.Cookies() {
		if c.Name == CookieName {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", CookieName, resp.Header["Set-Cookie"])
	return nil
}

func base(s *Server) string {
	u, _ := url.Parse(s.URL())
	return "http://" + u.Host
}

// do sends one request with optional cookie and extra headers.
func do(t *testing.T, method, target string, c *http.Cookie, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c != nil {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func echoRuntime(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method == protocol.MethodMCPList {
		return json.RawMessage(`{"servers":[{"id":"fake","state":"ready"}]}`), nil
	}
	return nil, protocol.Errorf(protocol.CodeMethodNotFound, "no %s", method)
}

// Every path of the page's listener refuses a request without the cookie,
// and a wrong key in the URL.
func TestNoSecretIsForbidden(t *testing.T) {
	s, _ := start(t, echoRuntime)
	for _, p := range []string{"/", "/static/app.js", "/api/events", "/?key=wrong", "/?key="} {
		if resp := do(t, "GET", base(s)+p, nil, "", nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s without the cookie: %d, want 403", p, resp.StatusCode)
		}
	}
	for _, p := range []string{"/api/call", "/api/answer", "/api/frame"} {
		if resp := do(t, "POST", base(s)+p, nil, `{"method":"mcp.list"}`, nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s without the cookie: %d, want 403", p, resp.StatusCode)
		}
	}
	bad := &http.Cookie{Name: CookieName, Value: "guess"}
	if resp := do(t, "GET", base(s)+"/", bad, "", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a wrong cookie: %d, want 403", resp.StatusCode)
	}
}

// The key is swapped for an HttpOnly, SameSite=Strict cookie (not the key
// itself) and a redirect to the clean address; the page then loads with a
// strict CSP, and no answer carries a CORS header.
func TestKeyBecomesStrictCookie(t *testing.T) {
	s, _ := start(t, echoRuntime)
	c := login(t, s)
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie flags: HttpOnly=%v SameSite=%v Path=%q", c.HttpOnly, c.SameSite, c.Path)
	}
	if strings.Contains(s.URL(), c.Value) {
		t.Error("the cookie is the key from the URL")
	}
	resp := do(t, "GET", base(s)+"/", c, "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / with the cookie: %d", resp.StatusCode)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self';", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("the page's CSP allows inline script: %q", csp)
	}
	body, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(body), "<script>") || strings.Contains(string(body), " on") && strings.Contains(string(body), "onclick=") {
		t.Error("the page has inline script")
	}
	for _, r := range []*http.Response{resp,
		do(t, "OPTIONS", base(s)+"/api/call", c, "", map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}),
		do(t, "POST", base(s)+"/api/call", c, `{"method":"mcp.list"}`, nil),
	} {
		for k := range r.Header {
			if strings.HasPrefix(strings.ToLower(k), "access-control-") {
				t.Errorf("%s %s answered a CORS header %s", r.Request.Method, r.Request.URL.Path, k)
			}
		}
	}
}

// A page of another site cannot use the API even with the cookie (a
// browser would not send it, but nothing relies on that): a foreign Origin
// is refused, the page's own is served.
func TestForeignOriginIsForbidden(t *testing.T) {
	s, _ := start(t, echoRuntime)
	c := login(t, s)
	for _, o := range []string{"http://evil.example", "null", "http://127.0.0.1:1", "https://" + strings.TrimPrefix(base(s), "http://")} {
		if resp := do(t, "POST", base(s)+"/api/call", c, `{"method":"mcp.list"}`, map[string]string{"Origin": o}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %s: %d, want 403", o, resp.StatusCode)
		}
	}
	// Another port of 127.0.0.1 is the same site: the browser sends the
	// cookie along, and says same-site.
	for _, site := range []string{"cross-site", "same-site"} {
		if resp := do(t, "POST", base(s)+"/api/call", c, `{"method":"mcp.list"}`, map[string]string{"Sec-Fetch-Site": site}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Sec-Fetch-Site %s: %d, want 403", site, resp.StatusCode)
		}
		if resp := do(t, "GET", base(s)+"/api/events", c, "", map[string]string{"Sec-Fetch-Site": site}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("events with Sec-Fetch-Site %s: %d, want 403", site, resp.StatusCode)
		}
	}
	for _, site := range []string{"none", "same-origin"} {
		if resp := do(t, "GET", base(s)+"/", c, "", map[string]string{"Sec-Fetch-Site": site}); resp.StatusCode != http.StatusOK {
			t.Errorf("the page with Sec-Fetch-Site %s: %d, want 200", site, resp.StatusCode)
		}
	}
	resp := do(t, "POST", base(s)+"/api/call", c, `{"method":"mcp.list"}`, map[string]string{"Origin": base(s)})
	var a callAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || !strings.Contains(string(a.Result), `"fake"`) {
		t.Errorf("the page's own Origin: %d %v %s", resp.StatusCode, err, a.Result)
	}
}

// DNS rebinding: a page of evil.example whose name now resolves to
// 127.0.0.1 reaches the port under its own Host; every such request is
// refused, the key URL included (no cookie is handed out).
func TestForeignHostIsForbidden(t *testing.T) {
	s, _ := start(t, echoRuntime)
	c := login(t, s)
	u, _ := url.Parse(s.URL())
	_, port, _ := net.SplitHostPort(u.Host)
	for _, h := range []string{"evil.example:" + port, "evil.example", "127.0.0.1", "127.0.0.1:1", "localhost.evil.example:" + port, "[::1]:" + port} {
		if resp := do(t, "GET", base(s)+"/", c, "", map[string]string{"Host": h}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host %s: %d, want 403", h, resp.StatusCode)
		}
		resp := do(t, "GET", s.URL(), nil, "", map[string]string{"Host": h})
		if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
			t.Errorf("the key URL under Host %s: %d, cookies %v", h, resp.StatusCode, resp.Cookies())
		}
	}
	if resp := do(t, "GET", base(s)+"/", c, "", map[string]string{"Host": "localhost:" + port}); resp.StatusCode != http.StatusOK {
		t.Errorf("Host localhost:%s: %d, want 200", port, resp.StatusCode)
	}
}

// A form of another site cannot post: the API takes only
// application/json, which a form cannot send without a preflight.
func TestAPIWantsJSON(t *testing.T) {
	s, _ := start(t, echoRuntime)
	c := login(t, s)
	resp := do(t, "POST", base(s)+"/api/call", c, "", map[string]string{"Content-Type": "text/plain"})
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d, want 415", resp.StatusCode)
	}
	for _, m := range []string{"initialize", "shutdown", ""} {
		resp := do(t, "POST", base(s)+"/api/call", c, `{"method":"`+m+`"}`, nil)
		var a callAnswer
		_ = json.NewDecoder(resp.Body).Decode(&a)
		if a.Error == nil || a.Error.Code != protocol.CodeMethodNotFound {
			t.Errorf("the page sent %q: %+v, want method not found", m, a)
		}
	}
}

// readEvents reads the page's event stream into a channel.
func readEvents(t *testing.T, s *Server, c *http.Cookie) <-chan event {
	t.Helper()
	resp := do(t, "GET", base(s)+"/api/events", c, "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ch := make(chan event, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var e event
				if json.Unmarshal([]byte(data), &e) == nil {
					ch <- e
				}
			}
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan event, kind string) event {
	t.Helper()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("the event stream ended before a %s event", kind)
			}
			if e.Kind == kind {
				return e
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s event", kind)
		}
	}
}

// The runtime's questions reach the page as events and the page's answer
// reaches the runtime; a notification streams through; a question the
// runtime withdraws is withdrawn in the page and a late answer is refused.
func TestBridgeRoundTrip(t *testing.T) {
	s, rt := start(t, echoRuntime)
	c := login(t, s)
	events := readEvents(t, s, c)
	if h := next(t, events, "hello"); !strings.Contains(string(h.Init), `"protocol_version":"test"`) {
		t.Errorf("hello: %s", h.Init)
	}
	if err := rt.conn.Notify(protocol.MethodAgentEvent, map[string]any{"run_id": "r1", "type": "text_delta", "text": "Hel"}); err != nil {
		t.Fatal(err)
	}
	if n := next(t, events, "notification"); n.Method != protocol.MethodAgentEvent || !strings.Contains(string(n.Params), `"Hel"`) {
		t.Errorf("notification: %+v", n)
	}
	got := make(chan protocol.ConfirmResult, 1)
	go func() {
		var r protocol.ConfirmResult
		_ = rt.conn.Call(context.Background(), protocol.MethodUIConfirm, &protocol.ConfirmParams{Kind: "tool_call", Title: "Allow x/y?"}, &r)
		got <- r
	}()
	req := next(t, events, "request")
	if req.Method != protocol.MethodUIConfirm || !strings.Contains(string(req.Params), "Allow x/y?") {
		t.Fatalf("request: %+v", req)
	}
	if resp := do(t, "POST", base(s)+"/api/answer", c, `{"id":`+strconv.FormatInt(req.ID, 10)+`,"result":{"answer":"allow_once"}}`, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("answer: %d", resp.StatusCode)
	}
	select {
	case r := <-got:
		if r.Answer != "allow_once" {
			t.Errorf("the runtime got %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the runtime got no answer")
	}
	if e := next(t, events, "answered"); e.ID != req.ID {
		t.Errorf("answered %d, want %d", e.ID, req.ID)
	}

	// Withdrawn: the runtime stops waiting.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_ = rt.conn.Call(ctx, protocol.MethodUIConfirm, &protocol.ConfirmParams{Kind: "tool_call"}, nil)
	}()
	req = next(t, events, "request")
	cancel() // the runtime's Conn announces it with ui.request.cancelled
	if e := next(t, events, "withdrawn"); e.ID != req.ID {
		t.Errorf("withdrawn %d, want %d", e.ID, req.ID)
	}
	if resp := do(t, "POST", base(s)+"/api/answer", c, `{"id":`+strconv.FormatInt(req.ID, 10)+`,"result":{"answer":"allow_once"}}`, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a late answer: %d, want 404", resp.StatusCode)
	}
}

// A page that connects (or reconnects) gets the last status of every
// server in its hello, in order with the events after it: the initialize
// snapshot updated by every mcp.status, removed servers gone.
func TestHelloCarriesTheLatestStatuses(t *testing.T) {
	s, rt := start(t, echoRuntime)
	c := login(t, s)
	first := readEvents(t, s, c)
	next(t, first, "hello")
	for _, p := range []string{
		`{"server":{"id":"a","state":"connecting"}}`,
		`{"server":{"id":"a","state":"ready"}}`,
		`{"server":{"id":"b","state":"ready"}}`,
		`{"server":{"id":"b","state":"ready"},"removed":true}`,
	} {
		if err := rt.conn.Notify(protocol.MethodMCPStatus, json.RawMessage(p)); err != nil {
			t.Fatal(err)
		}
		next(t, first, "notification")
	}
	h := next(t, readEvents(t, s, c), "hello")
	if len(h.Servers) != 1 || string(h.Servers[0]) != `{"id":"a","state":"ready"}` {
		t.Errorf("hello servers: %s", h.Servers)
	}
}

// A page's error answer reaches the runtime as an error (a confirm that
// fails denies), and a page that reads its stream too slowly loses the
// stream instead of making the bridge buffer without bound.
func TestErrorAnswerAndSlowPage(t *testing.T) {
	defer func(n int) { subscriberBuffer = n }(subscriberBuffer)
	subscriberBuffer = 4
	s, rt := start(t, echoRuntime)
	c := login(t, s)
	events := readEvents(t, s, c)
	next(t, events, "hello")
	errc := make(chan error, 1)
	go func() {
		errc <- rt.conn.Call(context.Background(), protocol.MethodUIConfirm, &protocol.ConfirmParams{Kind: "tool_call"}, nil)
	}()
	req := next(t, events, "request")
	do(t, "POST", base(s)+"/api/answer", c, `{"id":`+strconv.FormatInt(req.ID, 10)+`,"error":"the page broke"}`, nil)
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "the page broke") {
		t.Errorf("the runtime got %v", err)
	}

	// A stream nobody reads: the bridge drops it after the buffer fills.
	resp := do(t, "GET", base(s)+"/api/events", c, "", nil)
	_ = resp
	time.Sleep(100 * time.Millisecond)
	s.bridge.mu.Lock()
	before := len(s.bridge.subs)
	s.bridge.mu.Unlock()
	for range 10000 {
		s.bridge.broadcast(event{Kind: "notification", Method: "log", Params: json.RawMessage(`{"message":"` + strings.Repeat("x", 1000) + `"}`)})
	}
	s.bridge.mu.Lock()
	after := len(s.bridge.subs)
	s.bridge.mu.Unlock()
	if before < 2 || after >= before {
		t.Errorf("subscribers: %d before the flood, %d after; the unread stream should be dropped", before, after)
	}
}
