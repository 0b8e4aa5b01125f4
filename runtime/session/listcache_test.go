package session_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/mcp-host/mcp-host/runtime/session"
)

// memCache is a session.ToolsCache in memory that records the TTLs asked.
type memCache struct {
	mu   sync.Mutex
	m    map[string][]*mcp.Tool
	ttls []time.Duration
}

func (c *memCache) Load(k string) ([]*mcp.Tool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.m[k]
	return t, ok
}

func (c *memCache) Store(k string, t []*mcp.Tool, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]*mcp.Tool{}
	}
	c.m[k] = t
	c.ttls = append(c.ttls, ttl)
}

func (c *memCache) Forget(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

func (c *memCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// ttlServer is a go-sdk server whose list results say ttlMs = ttl, with
// the given tools, counting tools/list requests.
type ttlServer struct {
	*httptest.Server
	srv   *mcp.Server
	lists atomic.Int32
}

func newTTLServer(t testing.TB, ttl time.Duration, schema map[string]any, names ...string) *ttlServer {
	t.Helper()
	ts := &ttlServer{}
	ts.srv = mcp.NewServer(&mcp.Implementation{Name: "ttl", Version: "1"}, &mcp.ServerOptions{
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.GetParams().(*mcp.ListToolsParams); ok {
				c.TTLMs = int(ttl / time.Millisecond)
			}
		},
	})
	for _, n := range names {
		ts.srv.AddTool(&mcp.Tool{Name: n, InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ts.srv }, nil)
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"tools/list"`)) {
				ts.lists.Add(1)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

var object = map[string]any{"type": "object"}

// A catalog the server says is fresh for a minute is listed once: the next
// connect takes it from the cache; list_changed forgets it.
func TestFreshCatalogIsNotListedAgain(t *testing.T) {
	ts := newTTLServer(t, time.Minute, object, "a", "b")
	cache := &memCache{}
	opts := session.Options{ID: "ttl", URL: ts.URL, ToolsCache: cache, CacheKey: "ttl|" + ts.URL}
	s1 := connect(t, opts)
	if n := len(s1.Tools()); n != 2 || cache.size() != 1 {
		t.Fatalf("first connect: %d tools, %d cached", n, cache.size())
	}
	if len(cache.ttls) != 1 || cache.ttls[0] != time.Minute {
		t.Errorf("stored with TTLs %v, want [1m]", cache.ttls)
	}
	lists := ts.lists.Load()
	s2 := connect(t, opts)
	if got := ts.lists.Load(); got != lists {
		t.Errorf("the second connect sent %d tools/list, want none", got-lists)
	}
	if n := len(s2.Tools()); n != 2 {
		t.Errorf("the cached catalog has %d tools, want 2", n)
	}
	if _, err := s2.CallTool(context.Background(), "a", map[string]any{}); err != nil {
		t.Errorf("a call on the cached catalog: %v", err)
	}
	// The server's tools change: it says so, and the cache forgets.
	ts.srv.AddTool(&mcp.Tool{Name: "c", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	waitFor(t, "the cache to forget after list_changed", 10*time.Second, func() bool { return cache.size() == 0 })
	waitFor(t, "the refreshed catalog", 10*time.Second, func() bool { return len(s2.Tools()) == 3 })
}

// Without a positive ttlMs nothing is kept, and a catalog that binds
// parameters to headers (the SDK must list it itself) is never served
// from the cache.
func TestUncacheableCatalogs(t *testing.T) {
	for name, ts := range map[string]*ttlServer{
		"ttl 0":        newTTLServer(t, 0, object, "a"),
		"x-mcp-header": newTTLServer(t, time.Minute, map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}}, "a"),
	} {
		cache := &memCache{}
		opts := session.Options{ID: "ttl", URL: ts.URL, ToolsCache: cache, CacheKey: "ttl|" + ts.URL}
		connect(t, opts)
		lists := ts.lists.Load()
		connect(t, opts)
		if ts.lists.Load() == lists {
			t.Errorf("%s: the second connect did not list", name)
		}
	}
}

// BenchmarkConnect10kListTTL shows what a fresh list cache saves: connect
// to a server of 10,000 tools whose list says ttlMs, listing every page
// (no cache), against taking the catalog from the user's disk cache
// (listcache.Dir, filled once before), and the bare go-sdk's connect and
// list, in one run.
func BenchmarkConnect10kListTTL(b *testing.B) {
	names := make([]string, 10000)
	for i := range names {
		names[i] = fmt.Sprintf("tool_%05d", i)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"param_0": map[string]any{"type": "string", "description": "the first parameter"},
		"param_1": map[string]any{"type": "integer", "description": "the second parameter"}}}
	ts := newTTLServer(b, time.Hour, schema, names...)
	cache := &listcache.Dir{Path: b.TempDir()}
	opts := session.Options{ID: "ttl", URL: ts.URL}
	b.Run("bare-go-sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
				Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for _, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			cs.Close()
			if n != len(names) {
				b.Fatalf("%d tools", n)
			}
		}
	})
	run := func(b *testing.B, o session.Options) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := session.Connect(context.Background(), o)
			if err != nil {
				b.Fatal(err)
			}
			if n := len(s.Tools()); n != len(names) {
				b.Fatalf("%d tools", n)
			}
			s.Close()
		}
	}
	b.Run("session-listing", func(b *testing.B) { run(b, opts) })
	cached := opts
	cached.ToolsCache, cached.CacheKey = cache, "ttl|"+ts.URL
	s, err := session.Connect(context.Background(), cached) // fills the cache
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	b.Run("session-fresh-cache", func(b *testing.B) {
		lists := ts.lists.Load()
		run(b, cached)
		if ts.lists.Load() != lists {
			b.Fatal("the cached connects listed the tools")
		}
	})
}
