package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func tool(t *testing.T, meta string) *mcp.Tool {
	t.Helper()
	var tl mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"x","inputSchema":{"type":"object"},"_meta":`+meta+`}`), &tl); err != nil {
		t.Fatal(err)
	}
	return &tl
}

func TestToolMeta(t *testing.T) {
	cases := []struct {
		meta  string
		uri   string
		vis   []string
		model bool
	}{
		{`{}`, "", []string{"model", "app"}, true},
		{`{"ui":{"resourceUri":"ui://a/b"}}`, "ui://a/b", []string{"model", "app"}, true},
		{`{"ui/resourceUri":"ui://legacy"}`, "ui://legacy", []string{"model", "app"}, true},
		{`{"ui":{"resourceUri":"ui://a","visibility":["app"]}}`, "ui://a", []string{"app"}, false},
		{`{"ui":{"visibility":["model"]}}`, "", []string{"model"}, true},
		{`{"ui":{"visibility":["app","other","app"]}}`, "", []string{"app"}, false},
		{`{"ui":{"visibility":[]}}`, "", []string{}, false},
		{`{"ui":{"visibility":"app"}}`, "", []string{"model", "app"}, true}, // not a list: absent
		{`{"ui":{"visibility":["app",3]}}`, "", []string{"model", "app"}, true},
		{`{"ui":"nonsense"}`, "", []string{"model", "app"}, true},
	}
	for _, c := range cases {
		tl := tool(t, c.meta)
		got := Tool(tl)
		if got.ResourceURI != c.uri || !reflect.DeepEqual(got.Visibility, c.vis) {
			t.Errorf("Tool(%s) = %+v, want uri %q vis %v", c.meta, got, c.uri, c.vis)
		}
		if ModelVisible(tl) != c.model {
			t.Errorf("ModelVisible(%s) = %v, want %v", c.meta, !c.model, c.model)
		}
	}
	if !ModelVisible(&mcp.Tool{Name: "plain"}) || !ModelVisible(nil) {
		t.Error("a tool without _meta must be visible to the model")
	}
}

// reader serves one resource result and counts reads.
type reader struct {
	res   *mcp.ReadResourceResult
	err   error
	reads atomic.Int32
	gate  chan struct{}
}

func (r *reader) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	r.reads.Add(1)
	if r.gate != nil {
		<-r.gate
	}
	return r.res, r.err
}

func html(uri, mimeType, text string, meta mcp.Meta) *reader {
	return &reader{res: &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mimeType, Text: text, Meta: meta}}}}
}

var ref = Ref{Server: "srv", Tool: "get-time", URI: "ui://get-time/app.html"}

func TestFetchChecks(t *testing.T) {
	ctx := context.Background()
	r := html(ref.URI, "text/html; profile=mcp-app", "<html>hi</html>", mcp.Meta{"ui": map[string]any{
		"csp":         map[string]any{"connectDomains": []any{"https://api.example.com"}},
		"permissions": map[string]any{"clipboardWrite": map[string]any{}},
		"domain":      "abc.example", "prefersBorder": true,
	}})
	res, err := Fetch(ctx, r, ref, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.HTML != "<html>hi</html>" || res.UI == nil || res.UI.CSP == nil || res.UI.CSP.ConnectDomains[0] != "https://api.example.com" ||
		res.UI.Permissions == nil || res.UI.Permissions.ClipboardWrite == nil || res.UI.Permissions.Camera != nil ||
		res.UI.Domain != "abc.example" || res.UI.PrefersBorder == nil || !*res.UI.PrefersBorder {
		t.Errorf("resource = %+v, ui %+v", res, res.UI)
	}

	blob := &reader{res: &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ref.URI, MIMEType: MIMEType, Blob: []byte("<p>blob</p>")}}}}
	if res, err := Fetch(ctx, blob, ref, 0); err != nil || res.HTML != "<p>blob</p>" {
		t.Errorf("blob: %+v, %v", res, err)
	}

	bad := []struct {
		name string
		r    *reader
		ref  Ref
		max  int
		want error
		says string
	}{
		{"wrong mime", html(ref.URI, "text/html", "<p>", nil), ref, 0, ErrWrongMIME, `MIME type "text/html", want "text/html;profile=mcp-app"`},
		{"no mime", html(ref.URI, "", "<p>", nil), ref, 0, ErrWrongMIME, "MIME type"},
		{"other profile", html(ref.URI, "text/html;profile=other", "<p>", nil), ref, 0, ErrWrongMIME, "MIME type"},
		{"too large", html(ref.URI, MIMEType, strings.Repeat("a", 101), nil), ref, 100, ErrTooLarge, "101 bytes, over the bound of 100 bytes"},
		{"blob too large", &reader{res: &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ref.URI, MIMEType: MIMEType, Blob: make([]byte, 101)}}}}, ref, 100, ErrTooLarge, "101 bytes"},
		{"not ui", html("https://x", MIMEType, "<p>", nil), Ref{Server: "srv", Tool: "t", URI: "https://x"}, 0, ErrNotUI, "not a ui:// URI"},
		{"empty", &reader{res: &mcp.ReadResourceResult{}}, ref, 0, ErrNoContent, "no content"},
		{"bad utf8", html(ref.URI, MIMEType, "\xff\xfe", nil), ref, 0, ErrNoContent, "UTF-8"},
		{"bad meta", html(ref.URI, MIMEType, "<p>", mcp.Meta{"ui": map[string]any{"csp": "all"}}), ref, 0, ErrNoContent, "_meta.ui cannot be read"},
	}
	for _, b := range bad {
		_, err := Fetch(ctx, b.r, b.ref, b.max)
		var rerr *ResourceError
		if !errors.Is(err, b.want) || !errors.As(err, &rerr) || !strings.Contains(err.Error(), b.says) ||
			!strings.Contains(err.Error(), `server "srv"`) || !strings.Contains(err.Error(), b.ref.URI) {
			t.Errorf("%s: err = %v", b.name, err)
		}
	}
	failing := &reader{err: errors.New("boom")}
	if _, err := Fetch(ctx, failing, ref, 0); err == nil || !strings.Contains(err.Error(), `tool "get-time"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("read failure: %v", err)
	}
}

func TestCache(t *testing.T) {
	ctx := context.Background()
	var c Cache
	r := html(ref.URI, MIMEType, "<p>one</p>", nil)
	r.gate = make(chan struct{})
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, err := c.Get(ctx, r, ref); err != nil || res.HTML != "<p>one</p>" {
				t.Errorf("Get = %v, %v", res, err)
			}
		}()
	}
	close(r.gate)
	wg.Wait()
	if n := r.reads.Load(); n != 1 {
		t.Errorf("%d reads for 5 concurrent Gets, want 1", n)
	}
	// A new connection reads again.
	r2 := html(ref.URI, MIMEType, "<p>two</p>", nil)
	if res, _ := c.Get(ctx, r2, ref); res == nil || res.HTML != "<p>two</p>" || r2.reads.Load() != 1 {
		t.Errorf("after reconnect: %+v, reads %d", res, r2.reads.Load())
	}
	// A failure is not kept.
	bad := html(ref.URI, "text/plain", "x", nil)
	ref2 := Ref{Server: "srv", Tool: "t", URI: "ui://other"}
	for range 2 {
		if _, err := c.Get(ctx, bad, ref2); !errors.Is(err, ErrWrongMIME) {
			t.Errorf("err = %v", err)
		}
	}
	if bad.reads.Load() != 2 || c.Len() != 1 {
		t.Errorf("failure kept: reads %d, len %d", bad.reads.Load(), c.Len())
	}
	c.Forget("srv")
	if c.Len() != 0 {
		t.Errorf("Forget left %d", c.Len())
	}
}

func TestCacheBound(t *testing.T) {
	c := Cache{TotalBytes: 25}
	for i := range 5 {
		r := html(fmt.Sprintf("ui://r%d", i), MIMEType, strings.Repeat("x", 10), nil)
		if _, err := c.Get(context.Background(), r, Ref{Server: "s", URI: fmt.Sprintf("ui://r%d", i)}); err != nil {
			t.Fatal(err)
		}
		if c.size > 25 {
			t.Fatalf("size %d over the bound", c.size)
		}
	}
	if c.Len() != 2 || c.size != 20 {
		t.Errorf("len %d size %d, want 2 entries of 20 bytes", c.Len(), c.size)
	}
}

func TestRegistry(t *testing.T) {
	r := Registry{Max: 2}
	a := r.Open(Instance{Server: "s", Tool: "t", URI: "ui://a", RunID: "r1", CallID: "c1"})
	if a.ID != "app1" {
		t.Errorf("id %q", a.ID)
	}
	if again := r.Open(Instance{Server: "s", Tool: "t", URI: "ui://a", RunID: "r1", CallID: "c1"}); again.ID != a.ID {
		t.Errorf("same call opened twice: %q then %q", a.ID, again.ID)
	}
	b := r.Open(Instance{Server: "s", Tool: "t", URI: "ui://a"})
	c := r.Open(Instance{Server: "s", Tool: "t", URI: "ui://a"})
	if b.ID == c.ID {
		t.Error("direct calls share an instance")
	}
	if _, ok := r.Get(a.ID); ok {
		t.Error("the oldest instance was kept past Max")
	}
	if got, ok := r.Get(c.ID); !ok || got.URI != "ui://a" {
		t.Errorf("Get = %+v, %v", got, ok)
	}
	if !r.Close(c.ID) || r.Close(c.ID) {
		t.Error("Close twice")
	}
}

// listingReader also lists resources, with _meta.ui on the listing entry.
type listingReader struct {
	*reader
	list []*mcp.Resource
}

func (l listingReader) ListResources(context.Context) ([]*mcp.Resource, error) { return l.list, nil }

// Without _meta.ui on the content, the resource's entry in resources/list
// gives it; the content's own _meta.ui wins when both have one.
func TestFetchListedUIMeta(t *testing.T) {
	ctx := context.Background()
	listed := []*mcp.Resource{{URI: "ui://other"}, {URI: ref.URI, Meta: mcp.Meta{"ui": map[string]any{"domain": "listed.example"}}}}
	res, err := Fetch(ctx, listingReader{html(ref.URI, MIMEType, "<p>", nil), listed}, ref, 0)
	if err != nil || res.UI == nil || res.UI.Domain != "listed.example" {
		t.Errorf("listing fallback: %+v, %v", res, err)
	}
	own := html(ref.URI, MIMEType, "<p>", mcp.Meta{"ui": map[string]any{"domain": "content.example"}})
	res, err = Fetch(ctx, listingReader{own, listed}, ref, 0)
	if err != nil || res.UI == nil || res.UI.Domain != "content.example" {
		t.Errorf("content first: %+v, %v", res, err)
	}
	res, err = Fetch(ctx, listingReader{html(ref.URI, MIMEType, "<p>", nil), listed[:1]}, ref, 0)
	if err != nil || res.UI != nil {
		t.Errorf("no meta anywhere: %+v, %v", res, err)
	}
}

// A UI resource refused for its size is read once, however often and
// however concurrently its app is opened: the Cache shares the read and
// its Fetcher remembers the refusal (it does not for other failures, see
// TestCache).
func TestCacheRemembersASizeRefusal(t *testing.T) {
	var c Cache
	r := html(ref.URI, MIMEType, strings.Repeat("a", DefaultMaxBytes+1), nil)
	r.gate = make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Get(context.Background(), r, ref); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), `server "srv"`) {
				t.Errorf("err = %v, want ErrTooLarge", err)
			}
		}()
	}
	close(r.gate)
	wg.Wait()
	for range 10 {
		if _, err := c.Get(context.Background(), r, ref); !errors.Is(err, ErrTooLarge) {
			t.Errorf("err = %v, want ErrTooLarge", err)
		}
	}
	if n := r.reads.Load(); n != 1 {
		t.Errorf("%d reads of a refused resource, want 1", n)
	}
}
