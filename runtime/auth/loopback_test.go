package auth

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLoopbackLoginEndToEnd(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	var strayStatus int
	lb := &Loopback{Open: func(ctx context.Context, req *LoginRequest) error {
		// A stray request with a wrong state is refused and does not end
		// the login.
		resp, err := http.Get(req.RedirectURI + "?code=x&state=forged")
		if err != nil {
			return err
		}
		resp.Body.Close()
		strayStatus = resp.StatusCode
		// The browser: follow the authorization URL through the redirect.
		go func() {
			resp, err := http.Get(req.URL)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		return nil
	}}
	h := newHandler(t, rs, lb, nil, nil)
	if err := h.Login(context.Background()); err != nil {
		t.Fatalf("Login: %v", err)
	}
	if strayStatus != http.StatusBadRequest {
		t.Errorf("wrong state answered %d, want 400", strayStatus)
	}
	if got := currentToken(t, h); got != "access-1" {
		t.Errorf("token = %q", got)
	}
	redirect := as.authorizes[0].Get("redirect_uri")
	u, _ := url.Parse(redirect)
	if u.Hostname() != "127.0.0.1" || u.Path != "/callback" {
		t.Errorf("redirect URI = %q", redirect)
	}
	// Single use: the listener is gone after the login.
	if _, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		t.Error("callback listener still accepts connections after the login")
	}
}

func TestLoopbackBindsLoopbackOnlyAndReusesPreferredPort(t *testing.T) {
	lb := &Loopback{}
	uri, err := lb.RedirectURI(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	addr := lb.ln.Addr().(*net.TCPAddr)
	if !addr.IP.IsLoopback() || addr.IP.To4() == nil {
		t.Fatalf("listening on %v, want 127.0.0.1", addr)
	}
	lb.ln.Close()
	lb.ln = nil
	again, err := (&Loopback{}).RedirectURI(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	if again != uri {
		t.Errorf("preferred %s not reused: got %s", uri, again)
	}
}

func TestLoopbackTimesOut(t *testing.T) {
	lb := &Loopback{Timeout: 50 * time.Millisecond, Open: func(context.Context, *LoginRequest) error { return nil }}
	uri, _ := lb.RedirectURI(context.Background(), "")
	start := time.Now()
	_, err := lb.Login(context.Background(), &LoginRequest{ServerID: "srv", URL: "http://127.0.0.1:9/authorize", RedirectURI: uri, State: "s"})
	if err == nil || !strings.Contains(err.Error(), "no redirect within") {
		t.Fatalf("Login = %v, want a timeout", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("timeout not bounded")
	}
}

func TestParsePastedRedirect(t *testing.T) {
	res, err := ParsePastedRedirect(" http://127.0.0.1:5555/callback?code=abc&state=s1&iss=https%3A%2F%2Fas.example\n", "http://127.0.0.1:5555/callback")
	if err != nil || res.Code != "abc" || res.State != "s1" || res.Iss != "https://as.example" {
		t.Fatalf("got %+v, %v", res, err)
	}
	if _, err := ParsePastedRedirect("http://evil.example/callback?code=abc&state=s1", "http://127.0.0.1:5555/callback"); err == nil {
		t.Error("URL for another redirect URI accepted")
	}
	if res, err := ParsePastedRedirect("code=abc&state=s1", ""); err != nil || res.Code != "abc" {
		t.Errorf("query only: %+v, %v", res, err)
	}
	if _, err := ParsePastedRedirect("hello", ""); err == nil {
		t.Error("text without code accepted")
	}
}

// The browser gets the callback page however fast the login ends: the
// listener closes only after the page went out. Before, the server was
// closed as soon as the redirect was read, and the browser sometimes got
// a reset connection instead of "Logged in".
func TestLoopbackCallbackPageReachesTheBrowser(t *testing.T) {
	for i := range 50 {
		lb := &Loopback{Timeout: 10 * time.Second}
		page := make(chan string, 1)
		lb.Open = func(_ context.Context, req *LoginRequest) error {
			go func() {
				resp, err := http.Get(req.RedirectURI + "?code=c&state=" + url.QueryEscape(req.State))
				if err != nil {
					page <- "error: " + err.Error()
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					page <- "error reading: " + err.Error()
					return
				}
				page <- string(body)
			}()
			return nil
		}
		uri, err := lb.RedirectURI(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lb.Login(context.Background(), &LoginRequest{ServerID: "srv", URL: "http://127.0.0.1:9/authorize", RedirectURI: uri, State: "s" + strconv.Itoa(i)}); err != nil {
			t.Fatalf("login %d: %v", i, err)
		}
		if p := <-page; !strings.Contains(p, "You are logged in to srv") {
			t.Fatalf("login %d: the browser got %q", i, p)
		}
	}
}
