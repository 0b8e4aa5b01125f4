package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeRegistry serves GET /v0.1/servers and /v0.1/servers/{name}/versions/{v}
// as the registry's OpenAPI document describes them, from servers.
type fakeRegistry struct {
	servers []response
	calls   atomic.Int32
	queries []string
}

func item(name, version, status string) response {
	meta, _ := json.Marshal(map[string]any{"status": status, "isLatest": true, "publishedAt": "2025-12-11T00:00:00Z"})
	return response{
		Server: Server{Name: name, Description: "about " + name, Version: version,
			Packages: []Package{{RegistryType: "npm", Identifier: "@x/" + name[strings.Index(name, "/")+1:], Version: version, Transport: Transport{Type: "stdio"}}}},
		Meta: map[string]json.RawMessage{officialMeta: meta},
	}
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	f.queries = append(f.queries, r.URL.RawQuery)
	if r.URL.Path == "/v0.1/servers" {
		q := r.URL.Query()
		start, _ := strconv.Atoi(q.Get("cursor"))
		limit, _ := strconv.Atoi(q.Get("limit"))
		var match []response
		for _, s := range f.servers {
			if strings.Contains(s.Server.Name, q.Get("search")) {
				match = append(match, s)
			}
		}
		end := min(start+limit, len(match))
		out := map[string]any{"servers": match[start:end], "metadata": map[string]any{"count": end - start}}
		if end < len(match) {
			out["metadata"].(map[string]any)["nextCursor"] = strconv.Itoa(end)
		}
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	// The name arrives escaped (io.github.a%2Fb): match on the raw path.
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/v0.1/servers/")
	name, version, ok2 := strings.Cut(rest, "/versions/")
	if ok && ok2 {
		for _, s := range f.servers {
			if strings.ReplaceAll(name, "%2F", "/") == s.Server.Name && (version == "latest" || version == s.Server.Version) {
				_ = json.NewEncoder(w).Encode(s)
				return
			}
		}
	}
	http.Error(w, `{"error":"Server not found"}`, http.StatusNotFound)
}

func TestSearchPagesFiltersAndCaches(t *testing.T) {
	f := &fakeRegistry{}
	for i := range 7 {
		status := StatusActive
		if i == 3 {
			status = "deprecated"
		}
		if i == 5 {
			status = "deleted"
		}
		f.servers = append(f.servers, item(fmt.Sprintf("io.github.t/s%d", i), "1.0.0", status))
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	cache := &Cache{Dir: t.TempDir()}
	c := &Client{URL: srv.URL + "/", PageSize: 2, Cache: cache}
	r, err := c.Search(context.Background(), "io.github.t", false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range r.Entries {
		names = append(names, e.Server.Name)
		if e.Registry != srv.URL {
			t.Errorf("registry %q, want %q", e.Registry, srv.URL)
		}
	}
	if got := strings.Join(names, ","); got != "io.github.t/s0,io.github.t/s1,io.github.t/s2,io.github.t/s4,io.github.t/s6" {
		t.Fatalf("active entries: %s", got)
	}
	if r.FromCache || r.Truncated || f.calls.Load() != 4 {
		t.Fatalf("from cache %v truncated %v calls %d, want a fresh full listing in 4 pages", r.FromCache, r.Truncated, f.calls.Load())
	}
	if !strings.Contains(f.queries[0], "version=latest") || !strings.Contains(f.queries[1], "cursor=2") {
		t.Fatalf("queries %q: want version=latest and the cursor followed", f.queries)
	}
	// Fresh from the cache: no request.
	r2, err := c.Search(context.Background(), "io.github.t", false)
	if err != nil || !r2.FromCache || len(r2.Entries) != 5 || f.calls.Load() != 4 {
		t.Fatalf("second search: err %v from cache %v entries %d calls %d", err, r2 != nil && r2.FromCache, len(r2.Entries), f.calls.Load())
	}
	if age := Age(r2, r2.FetchedAt.Add(90*time.Second)); age != "cached 1m" {
		t.Fatalf("age %q", age)
	}
	// The registry gone: a stale answer is still shown, with its age.
	srv.Close()
	cache.TTL = time.Nanosecond
	r3, err := c.Search(context.Background(), "io.github.t", false)
	if err != nil || !r3.FromCache || !strings.Contains(r3.Unreachable, srv.URL) {
		t.Fatalf("offline search: err %v, unreachable %q", err, r3.Unreachable)
	}
	// The page cap stops a listing and says so.
	srv2 := httptest.NewServer(f)
	defer srv2.Close()
	capped := &Client{URL: srv2.URL, PageSize: 1, MaxPages: 2}
	r4, err := capped.Search(context.Background(), "", true)
	if err != nil || !r4.Truncated || len(r4.Entries) != 2 {
		t.Fatalf("capped: err %v truncated %v entries %d", err, r4 != nil && r4.Truncated, len(r4.Entries))
	}
}

func TestGetAndErrors(t *testing.T) {
	f := &fakeRegistry{servers: []response{item("io.github.t/a", "1.2.0", StatusActive), item("io.github.t/old", "0.1.0", "deprecated")}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := &Client{URL: srv.URL}
	e, err := c.Get(context.Background(), "io.github.t/a", "")
	if err != nil || e.Server.Version != "1.2.0" {
		t.Fatalf("get: %+v %v", e, err)
	}
	if _, err := c.Get(context.Background(), "io.github.t/none", "1.0.0"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := c.Get(context.Background(), "io.github.t/old", "latest"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "deprecated") {
		t.Fatalf("deprecated: %v", err)
	}
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"servers":[` + strings.Repeat(" ", 4096) + `]}`))
	}))
	defer big.Close()
	_, err = (&Client{URL: big.URL, MaxBytes: 1024}).Search(context.Background(), "", true)
	if err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") {
		t.Fatalf("oversize answer: %v", err)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"boom","access_token":"s3cr3t-value"}`, http.StatusInternalServerError)
	}))
	defer bad.Close()
	_, err = (&Client{URL: bad.URL}).Search(context.Background(), "", true)
	if err == nil || !strings.Contains(err.Error(), "500") || strings.Contains(err.Error(), "s3cr3t-value") {
		t.Fatalf("server error: %v", err)
	}
}

func TestURLs(t *testing.T) {
	if got := URLs("", nil); len(got) != 1 || got[0] != OfficialURL {
		t.Fatalf("default: %v", got)
	}
	if got := URLs("https://a.example/, https://b.example", nil); strings.Join(got, " ") != "https://a.example https://b.example" {
		t.Fatalf("setting: %v", got)
	}
	if got := URLs("https://a.example", []string{"https://org.example"}); strings.Join(got, " ") != "https://org.example" {
		t.Fatalf("policy: %v", got)
	}
}

// TestCacheFileIsInput: a cache file someone else wrote, nested millions
// deep or for another key, is a miss, not a crash or a wrong answer.
func TestCacheFileIsInput(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	if err := c.Put("k", &Result{FetchedAt: time.Now(), Entries: []Entry{{Server: Server{Name: "io.github.t/a"}}}}); err != nil {
		t.Fatal(err)
	}
	if r, ok := c.Get("k", false); !ok || r.Entries[0].Server.Name != "io.github.t/a" || !r.FromCache {
		t.Fatalf("get: %v %+v", ok, r)
	}
	if _, ok := c.Get("other", true); ok {
		t.Fatal("another key's answer")
	}
	deep := `{"key":"k","result":{"entries":` + strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000) + `}}`
	if err := os.WriteFile(c.path("k"), []byte(deep), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get("k", true); ok {
		t.Fatal("a deeply nested cache file was used")
	}
}
