package session_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// pageStreamServer answers tools/list on an event stream, writing each
// page in two parts: page(cursor) returns the head (up to and including
// the point where the page should pause) and the tail. Between the two it
// calls between(cursor, request context), which may wait. It records every
// cursor asked for, and those whose request the client gave up.
type pageStreamServer struct {
	page    func(cursor string) (head, tail string)
	between func(cursor string, ctx context.Context)

	mu    sync.Mutex
	asked []string
	gone  []string // cursors whose request the client cancelled
}

func (p *pageStreamServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := readCall(w, r)
		if !ok {
			return
		}
		switch req.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"pages","version":"1"}}}`, req.ID)
		case "tools/list":
			c := req.Params.Cursor
			p.mu.Lock()
			p.asked = append(p.asked, c)
			p.mu.Unlock()
			head, tail := p.page(c)
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s", req.ID, head)
			w.(http.Flusher).Flush()
			if p.between != nil {
				p.between(c, r.Context())
			}
			select {
			case <-r.Context().Done():
				p.mu.Lock()
				p.gone = append(p.gone, c)
				p.mu.Unlock()
				return
			default:
			}
			fmt.Fprintf(w, "%s}}\n\n", tail) // the result, the message
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, req.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (p *pageStreamServer) cursors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asked)
}

func (p *pageStreamServer) cancelled() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.gone)
}

// pageTools is the tools array of a page of n tools named prefix0...,
// each with a 2,000-byte description: the stream is read in pieces of 4
// KiB, so a page's start is seen before its end only when the page is
// larger than that, as the pages worth asking ahead for are.
func pageTools(prefix string, n int) string {
	var b strings.Builder
	b.WriteString(`[`)
	for i := range n {
		if i > 0 {
			b.WriteString(`,`)
		}
		fmt.Fprintf(&b, `{"name":"%s%d","description":"%s","inputSchema":{"type":"object"}}`, prefix, i, strings.Repeat("d", 2000))
	}
	b.WriteString(`]`)
	return b.String()
}

// The next page is asked for as soon as the start of this page names its
// cursor: the server holds the rest of page one until the request for page
// two has arrived, which, were the pages asked for one after the other,
// would never happen (the test then fails after 10 s).
func TestPaginationAsksForTheNextPageWhileThisOneArrives(t *testing.T) {
	p := &pageStreamServer{}
	next := map[string]string{"": "c2", "c2": "c3", "c3": ""}
	p.page = func(c string) (string, string) {
		head := `{"tools":` + pageTools("t"+c+"_", 3)
		if next[c] != "" {
			head = `{"nextCursor":"` + next[c] + `","tools":` + pageTools("t"+c+"_", 3)
		}
		return head, ""
	}
	early := make(chan bool, 3)
	p.between = func(c string, _ context.Context) {
		if next[c] == "" {
			return
		}
		// Wait for the request of the page this one names.
		deadline := time.After(10 * time.Second)
		for {
			if slices.Contains(p.cursors(), next[c]) {
				early <- true
				return
			}
			select {
			case <-deadline:
				early <- false
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	s, err := session.Connect(context.Background(), session.Options{ID: "pages", URL: p.start(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		if !<-early {
			t.Fatal("the next page was not asked for before the page naming it had arrived")
		}
	}
	if got := len(s.Tools()); got != 9 {
		t.Errorf("tools = %d, want 9", got)
	}
	if got, want := p.cursors(), []string{"", "c2", "c3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cursors asked = %q, want %q", got, want)
	}
}

// A cursor read early is a guess: when the whole page says otherwise (a
// nextCursor named twice, whose last value counts, as for any JSON
// reader), the request for the guess is cancelled, the page the page
// really names is read, and nothing of the guessed page is in the catalog.
func TestPaginationEarlyCursorGuessIsChecked(t *testing.T) {
	p := &pageStreamServer{}
	p.page = func(c string) (string, string) {
		switch c {
		case "":
			return `{"nextCursor":"guess","tools":` + pageTools("first", 2), `,"nextCursor":"real"`
		case "guess":
			return `{"tools":` + pageTools("guessed", 2), ""
		}
		return `{"tools":` + pageTools(c, 2), ""
	}
	p.between = func(c string, ctx context.Context) {
		switch c {
		case "": // the rest of page one once the guess is asked for
			for deadline := time.Now().Add(10 * time.Second); !slices.Contains(p.cursors(), "guess") && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
		case "guess": // held until the client lets go of it
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
			}
		}
	}
	s, err := session.Connect(context.Background(), session.Options{ID: "pages", URL: p.start(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var names []string
	for _, tool := range s.Tools() {
		names = append(names, tool.Name)
	}
	if want := []string{"first0", "first1", "real0", "real1"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tools = %q, want %q", names, want)
	}
	if got := p.cursors(); !slices.Contains(got, "guess") || !slices.Contains(got, "real") {
		t.Errorf("cursors asked = %q; want the guess asked early, and the real cursor after it", got)
	}
	for deadline := time.Now().Add(5 * time.Second); !slices.Contains(p.cancelled(), "guess"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the request for the guessed cursor was not cancelled (cancelled: %q)", p.cancelled())
		}
	}
}

// The page cap holds for pages asked for early: no request goes beyond it.
func TestPaginationCapHoldsForEarlyRequests(t *testing.T) {
	p := &pageStreamServer{}
	p.page = func(c string) (string, string) {
		return `{"nextCursor":"` + c + `x","tools":` + pageTools("t"+c+"_", 1), ""
	}
	_, err := session.Connect(context.Background(), session.Options{ID: "pages", URL: p.start(t), MaxToolPages: 4})
	if err == nil || !strings.Contains(err.Error(), "page cap 4") {
		t.Fatalf("err = %v, want the page cap", err)
	}
	if got := p.cursors(); len(got) != 4 {
		t.Errorf("cursors asked = %q, want 4 (the cap)", got)
	}
}

// A page is read into a buffer the size of the page before it, and the
// tools decoded from a page keep their buffer: a server whose pages go
// from large to small, again and again, must not make each small page keep
// a large buffer (eight more 2.5 MB buffers here). What the catalog keeps
// stays about the size of what was sent.
func TestPaginationSmallPagesAfterLargeOnesKeepLittle(t *testing.T) {
	const pages = 16 // large, small, large, …
	p := &pageStreamServer{}
	p.page = func(c string) (string, string) {
		n := 0
		fmt.Sscanf(c, "c%d", &n)
		tools := pageTools(fmt.Sprintf("p%d_", n), 1)
		if n%2 == 0 {
			tools = pageTools(fmt.Sprintf("p%d_", n), 1000) // about 2 MB
		}
		if n == pages-1 {
			return `{"tools":` + tools, ""
		}
		return fmt.Sprintf(`{"nextCursor":"c%d","tools":%s`, n+1, tools), ""
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := session.Connect(context.Background(), session.Options{ID: "pages", URL: p.start(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := len(s.Tools()), pages/2*1001; got != want {
		t.Fatalf("tools = %d, want %d", got, want)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	sent := int64(pages / 2 * 1000 * 2100)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("sent %.1f MB, the catalog keeps %.1f MB", float64(sent)/(1<<20), float64(kept)/(1<<20))
	if kept > sent*3/2 {
		t.Errorf("the catalog keeps %.1f MB for %.1f MB of pages", float64(kept)/(1<<20), float64(sent)/(1<<20))
	}
	runtime.KeepAlive(s)
}
