package web

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-host/mcp-host/protocol"
)

// maxFrames and maxFrameBytes bound the app documents kept at once (their
// number and their total size); the oldest go first. Variables for tests.
var (
	maxFrames     = 64
	maxFrameBytes = 64 << 20
)

// frames keeps the HTML of MCP Apps the page shows, each under an
// unguessable token, and serves it from the app listener: another origin
// than the page's, so even an app frame that were not sandboxed could not
// read the page.
type frames struct {
	origin string // http://127.0.0.1:P of the app listener; "" when none
	port   int
	// page is the page's origins, the only ones that may frame an app.
	page string

	mu    sync.Mutex
	docs  map[string]*frameDoc
	order []string
	bytes int
}

// frameDoc is one app document and the CSP it is served under.
type frameDoc struct {
	html []byte
	csp  string
}

func newFrames(origin string, port, pagePort int) *frames {
	return &frames{origin: origin, port: port, page: pagePorts(pagePort), docs: map[string]*frameDoc{}}
}

// frameRequest is the body of POST /api/frame.
type frameRequest struct {
	HTML string `json:"html"`
	// CSP is what the app declared in its UI resource's _meta.ui.csp, as
	// app.read_resource gives it.
	CSP *protocol.AppCSP `json:"csp,omitempty"`
}

// frameAnswer is the answer to POST /api/frame.
type frameAnswer struct {
	URL string `json:"url,omitempty"`
	// CSP is the policy the document is served under.
	CSP string `json:"csp,omitempty"`
	// Ignored lists declared origins that are not origins (they could
	// smuggle directives into the policy) and were left out.
	Ignored []string `json:"ignored,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// serveRegister is POST /api/frame (page listener): keep an app's HTML
// and answer the URL of the app listener that serves it.
func (f *frames) serveRegister(w http.ResponseWriter, r *http.Request) {
	var req frameRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if f.origin == "" {
		writeJSON(w, frameAnswer{Error: "app frames are not served"})
		return
	}
	csp, ignored := appPolicy(req.CSP, f.page)
	token, err := randomToken()
	if err != nil {
		writeJSON(w, frameAnswer{Error: err.Error()})
		return
	}
	f.mu.Lock()
	f.docs[token] = &frameDoc{html: []byte(req.HTML), csp: csp}
	f.order = append(f.order, token)
	f.bytes += len(req.HTML)
	for len(f.order) > 1 && (len(f.order) > maxFrames || f.bytes > maxFrameBytes) {
		f.bytes -= len(f.docs[f.order[0]].html)
		delete(f.docs, f.order[0])
		f.order = f.order[1:]
	}
	f.mu.Unlock()
	writeJSON(w, frameAnswer{URL: f.origin + "/frame/" + token, CSP: csp, Ignored: ignored})
}

// AppHandler serves the app listener: GET /frame/{token}, nothing else.
// It needs no cookie (a sandboxed frame has an opaque origin and sends
// none); the token is the key, and the Host header must name the listener.
func (s *Server) AppHandler() http.Handler {
	f := s.frames
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if !loopbackHost(r.Host, f.port) {
			http.Error(w, "forbidden: unexpected Host header", http.StatusForbidden)
			return
		}
		token, ok := strings.CutPrefix(r.URL.Path, "/frame/")
		if r.Method != http.MethodGet || !ok {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		f.mu.Lock()
		doc := f.docs[token]
		f.mu.Unlock()
		if doc == nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		h.Set("Content-Security-Policy", doc.csp)
		h.Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(doc.html)
	})
}

// originPattern is what a declared CSP domain must look like: a scheme, a
// host (a leading *. allowed) and a port; no paths, quotes, spaces or
// semicolons that could add directives.
var originPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$`)
})

// appPolicy builds the CSP an app document is served under from what the
// app declared (SEP-1865's mapping; nothing declared means no network):
// inline script and style (an app is one HTML document), data: images and
// fonts, connect-src from connectDomains, script/style/img/font/media
// from resourceDomains, frame-src from frameDomains, base-uri from
// baseUriDomains. It always sandboxes the document (also when it is
// opened outside the page) and lets only the page frame it.
func appPolicy(c *protocol.AppCSP, pageOrigins string) (policy string, ignored []string) {
	if c == nil {
		c = &protocol.AppCSP{}
	}
	keep := func(list []string) string {
		var ok []string
		for _, d := range list {
			if originPattern().MatchString(d) {
				ok = append(ok, d)
			} else {
				ignored = append(ignored, d)
			}
		}
		return strings.Join(ok, " ")
	}
	or := func(list, none string) string {
		if list == "" {
			return none
		}
		return list
	}
	res := keep(c.ResourceDomains)
	with := func(base string) string { return strings.TrimSpace(base + " " + res) }
	parts := []string{
		"default-src 'none'",
		"script-src " + with("'unsafe-inline'"),
		"style-src " + with("'unsafe-inline'"),
		"img-src " + with("data: blob:"),
		"font-src " + with("data:"),
		"media-src " + with("data: blob:"),
		"connect-src " + or(keep(c.ConnectDomains), "'none'"),
		"frame-src " + or(keep(c.FrameDomains), "'none'"),
		"base-uri " + or(keep(c.BaseURIDomains), "'none'"),
		"form-action 'none'",
		"object-src 'none'",
		"frame-ancestors " + or(pageOrigins, "'none'"),
		"sandbox allow-scripts",
	}
	return strings.Join(parts, "; "), ignored
}

// pagePorts formats the page's origins for frame-ancestors.
func pagePorts(port int) string {
	p := strconv.Itoa(port)
	return "http://127.0.0.1:" + p + " http://localhost:" + p
}
