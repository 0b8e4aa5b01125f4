package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// DefaultLoginTimeout bounds how long a [Loopback] waits for the redirect.
const DefaultLoginTimeout = 5 * time.Minute

// callbackDrain bounds the wait for the callback page to go out when a
// login ends.
const callbackDrain = 2 * time.Second

// Loopback is a [LoginPrompter] that receives the authorization redirect on
// 127.0.0.1 (RFC 8252 section 7.3). Open shows the authorization URL; it is
// where the runtime asks for consent and opens the browser, or prints the
// URL. Each listener serves one login and is closed after it.
type Loopback struct {
	// Open shows req.URL to the user. It must not block until the login
	// ends. Required.
	Open func(ctx context.Context, req *LoginRequest) error
	// Port is the port to listen on; 0 means the port of the previous
	// redirect URI if it is free, else a random one.
	Port int
	// Path is the callback path; empty means "/callback".
	Path string
	// Timeout bounds the wait for the redirect; zero means
	// DefaultLoginTimeout.
	Timeout time.Duration
	// Paste, if set, is a second way for the redirect to come back (the
	// person pastes the address the browser ended on): Login calls it
	// after Open, in its own goroutine, and takes whichever comes first,
	// the callback on the listener or what Paste returns. Its ctx ends
	// when the callback wins. An error from Paste ends the login.
	Paste func(ctx context.Context, req *LoginRequest) (*CallbackResult, error)

	mu sync.Mutex
	ln net.Listener
}

func (l *Loopback) path() string {
	if l.Path == "" {
		return "/callback"
	}
	return l.Path
}

// RedirectURI binds the listener for the next login and returns its URI.
func (l *Loopback) RedirectURI(_ context.Context, preferred string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		ln, err := l.listen(preferred)
		if err != nil {
			return "", err
		}
		l.ln = ln
	}
	return l.uri(), nil
}

func (l *Loopback) uri() string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", l.ln.Addr().(*net.TCPAddr).Port, l.path())
}

func (l *Loopback) listen(preferred string) (net.Listener, error) {
	if l.Port != 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(l.Port)))
		if err != nil {
			return nil, fmt.Errorf("login callback: listening on 127.0.0.1:%d: %w", l.Port, err)
		}
		return ln, nil
	}
	if u, err := url.Parse(preferred); err == nil && u.Hostname() == "127.0.0.1" && u.Port() != "" && u.Path == l.path() {
		if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", u.Port())); err == nil {
			return ln, nil
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("login callback: listening on 127.0.0.1: %w", err)
	}
	return ln, nil
}

// Close releases the listener bound by RedirectURI for a login that does
// not happen. The Loopback can be used again afterwards.
func (l *Loopback) Close() error {
	l.mu.Lock()
	ln := l.ln
	l.ln = nil
	l.mu.Unlock()
	if ln == nil {
		return nil
	}
	return ln.Close()
}

// Login opens req.URL through Open and waits for one redirect carrying
// req.State (or, with Paste set, for the pasted one). Requests with another state get an error page and are
// otherwise ignored. The listener is closed when Login returns.
func (l *Loopback) Login(ctx context.Context, req *LoginRequest) (*CallbackResult, error) {
	if l.Open == nil {
		return nil, errors.New("login callback: no way to show the authorization URL (Loopback.Open is nil)")
	}
	if err := CheckBrowserURL(req.URL); err != nil {
		l.Close()
		return nil, fmt.Errorf("login callback: %w", err)
	}
	if _, err := l.RedirectURI(ctx, req.RedirectURI); err != nil {
		return nil, err
	}
	l.mu.Lock()
	ln := l.ln
	l.ln = nil
	l.mu.Unlock()
	defer ln.Close()

	results := make(chan *CallbackResult, 1)
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc(l.path(), func(w http.ResponseWriter, r *http.Request) {
		res := ParseCallback(r.URL.Query())
		if subtle.ConstantTimeCompare([]byte(res.State), []byte(req.State)) != 1 {
			page(w, http.StatusBadRequest, "Login failed", "This response does not belong to the login in progress. Close this tab and try again.")
			return
		}
		if res.Error != "" {
			page(w, http.StatusOK, "Login failed", "The authorization server said: "+res.Error+". You can close this tab.")
		} else {
			page(w, http.StatusOK, "Logged in", "You are logged in to "+req.ServerID+". You can close this tab.")
		}
		once.Do(func() { results <- res })
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		// Let the page that ended the login reach the browser, briefly.
		sctx, cancel := context.WithTimeout(context.Background(), callbackDrain)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	}()

	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLoginTimeout
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := l.Open(wctx, req); err != nil {
		return nil, fmt.Errorf("login callback: showing the authorization URL: %w", err)
	}
	type pasted struct {
		res *CallbackResult
		err error
	}
	pastes := make(chan pasted, 1)
	if l.Paste != nil {
		go func() {
			res, err := l.Paste(wctx, req)
			pastes <- pasted{res, err}
		}()
	}
	select {
	case res := <-results:
		return res, nil
	case p := <-pastes:
		if p.err != nil && wctx.Err() == nil {
			return nil, p.err
		}
		if p.err == nil {
			return p.res, nil
		}
		<-wctx.Done() // the paste gave up because the wait ended: say why below
		if ctx.Err() != nil {
			return nil, fmt.Errorf("login callback: %w", ctx.Err())
		}
		return nil, fmt.Errorf("login callback: no redirect within %s", timeout)
	case <-wctx.Done():
		if ctx.Err() != nil {
			return nil, fmt.Errorf("login callback: %w", ctx.Err())
		}
		return nil, fmt.Errorf("login callback: no redirect within %s", timeout)
	}
}

func page(w http.ResponseWriter, status int, title, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><title>%[1]s</title>
<style>body{font-family:system-ui,sans-serif;max-width:32em;margin:4em auto;padding:0 1em;color:#222}</style>
</head><body><h1>%[1]s</h1><p>%[2]s</p></body></html>`, html.EscapeString(title), html.EscapeString(msg))
}
