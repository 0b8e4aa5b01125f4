package web

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
)

//go:embed static
var static embed.FS

// CookieName is the name of the session cookie the secret is swapped for.
const CookieName = "mcp_host_web"

// secretParam is the query parameter of the printed URL that carries the
// secret.
const secretParam = "key"

// pageCSP is the page's Content Security Policy; frameSrc is the origin of
// the app listener (app frames are the only thing the page may frame).
func pageCSP(frameSrc string) string {
	frame := "'none'"
	if frameSrc != "" {
		frame = frameSrc
	}
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
		"frame-src " + frame + "; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// Server is the web UI's HTTP side: the page, its API and the security
// checks in front of both. Build one with [NewServer]; its Handler serves
// the page's listener and AppHandler the app frames' listener.
type Server struct {
	secret  string // in the printed URL, swapped for the cookie
	session string // the cookie's value
	port    int    // the page listener's port, for the Host and Origin checks
	bridge  *Bridge
	frames  *frames
}

// NewServer returns a server for a page listening on 127.0.0.1:port that
// bridges to b. appOrigin is the origin of the app frames' listener
// (http://127.0.0.1:P), or "" when app frames are not served.
func NewServer(port int, b *Bridge, appOrigin string, appPort int) (*Server, error) {
	secret, err := randomToken()
	if err != nil {
		return nil, err
	}
	session, err := randomToken()
	if err != nil {
		return nil, err
	}
	return &Server{secret: secret, session: session, port: port, bridge: b, frames: newFrames(appOrigin, appPort, port)}, nil
}

// randomToken is 256 random bits, URL-safe.
func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("web: random secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// URL is the address to open: the page with the secret.
func (s *Server) URL() string {
	return "http://127.0.0.1:" + strconv.Itoa(s.port) + "/?" + secretParam + "=" + s.secret
}

// Handler serves the page's listener.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	files, _ := fs.Sub(static, "static")
	fileServer := http.FileServerFS(files)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		serveFile(w, r, files, "index.html")
	})
	mux.Handle("GET /static/", http.StripPrefix("/static/", fileServer))
	mux.HandleFunc("GET /api/events", s.bridge.serveEvents)
	mux.HandleFunc("POST /api/call", s.bridge.serveCall)
	mux.HandleFunc("POST /api/answer", s.bridge.serveAnswer)
	mux.HandleFunc("POST /api/markdown", serveMarkdown)
	mux.HandleFunc("POST /api/frame", s.frames.serveRegister)
	return s.guard(mux)
}

// serveFile serves one embedded file.
func serveFile(w http.ResponseWriter, r *http.Request, files fs.FS, name string) {
	data, err := fs.ReadFile(files, name)
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(data)
}

// guard runs the security checks in front of every request of the page's
// listener and sets the headers every answer carries.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP(s.frames.origin))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if reason := s.refuse(r); reason != "" {
			http.Error(w, "forbidden: "+reason, http.StatusForbidden)
			return
		}
		// The printed URL: swap the secret for the cookie and go to the
		// clean address, so the secret leaves the address bar.
		if key := r.URL.Query().Get(secretParam); key != "" {
			if r.Method != http.MethodGet || r.URL.Path != "/" || !equal(key, s.secret) {
				http.Error(w, "forbidden: wrong key", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{
				Name: CookieName, Value: s.session, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode,
			})
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(CookieName)
		if err != nil || !equal(c.Value, s.session) {
			http.Error(w, "forbidden: open the address host web printed (it holds the key)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse says why a request may not be served whatever its credentials,
// or "": its Host must be this listener (a DNS-rebinding page reaches us
// under its own name), a present Origin must be the page's own, and a
// browser's Sec-Fetch-Site must say same-origin (the page itself) or none
// (the person opened the address). A page of another port of 127.0.0.1 is
// same-site, so the SameSite=Strict cookie goes with its requests: only
// Origin and Sec-Fetch-Site tell them apart, also for a GET that sends no
// Origin (an <img> or EventSource pointed at the API).
func (s *Server) refuse(r *http.Request) string {
	if !loopbackHost(r.Host, s.port) {
		return "unexpected Host header"
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return "foreign Origin"
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return "request from another site or origin"
	}
	return ""
}

// loopbackHost reports whether host (a Host header) is 127.0.0.1:port or
// localhost:port.
func loopbackHost(host string, port int) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != strconv.Itoa(port) {
		return false
	}
	return h == "127.0.0.1" || strings.EqualFold(h, "localhost")
}

// equal compares secrets in constant time.
func equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
