package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/internal/statefile"
	"github.com/mcp-host/mcp-host/redact"
)

// Defaults of a [Client].
const (
	// DefaultMaxBytes caps one answer of the registry.
	DefaultMaxBytes = 8 << 20
	// DefaultPageSize is the limit asked for on each page.
	DefaultPageSize = 100
	// DefaultMaxPages caps how many pages one search follows.
	DefaultMaxPages = 10
	// DefaultTimeout bounds each request when the HTTP client has none.
	DefaultTimeout = 30 * time.Second
)

// ErrNotFound is matched by the error of [Client.Get] for a name or
// version the registry does not have (or has only inactive).
var ErrNotFound = errors.New("not found in the registry")

// Client talks to one registry.
type Client struct {
	// URL is the registry's base URL, without /v0.1.
	URL string
	// HTTP sends the requests; nil means a client with DefaultTimeout.
	HTTP *http.Client
	// MaxBytes caps each answer; 0 means DefaultMaxBytes.
	MaxBytes int64
	// PageSize and MaxPages bound a search; 0 means the defaults.
	PageSize, MaxPages int
	// Cache, when set, keeps search answers; see [Cache].
	Cache *Cache
}

// Result is the answer to a search.
type Result struct {
	// Entries are the active latest versions that matched, in the
	// registry's order.
	Entries []Entry `json:"entries"`
	// FetchedAt is when the registry answered (earlier when from the cache).
	FetchedAt time.Time `json:"fetched_at"`
	// FromCache says the entries are the cache's, not a fresh answer.
	FromCache bool `json:"from_cache,omitempty"`
	// Truncated says the page cap stopped the listing before its end.
	Truncated bool `json:"truncated,omitempty"`
	// Unreachable, when set, is why the registry was not asked: the
	// entries are an older cached answer.
	Unreachable string `json:"unreachable,omitempty"`
}

// Search lists the latest version of each active server whose name
// matches query (a substring; "" lists all), following the cursor up to
// MaxPages pages. A cached answer younger than the cache's TTL is used
// unless refresh; when the registry cannot be reached, a cached answer of
// any age is returned, with the reason in Unreachable.
func (c *Client) Search(ctx context.Context, query string, refresh bool) (*Result, error) {
	key := c.base() + "\x00search\x00" + query
	if c.Cache != nil && !refresh {
		if r, ok := c.Cache.Get(key, false); ok {
			return r, nil
		}
	}
	r, err := c.search(ctx, query)
	if err != nil {
		if c.Cache != nil {
			if cached, ok := c.Cache.Get(key, true); ok {
				cached.Unreachable = err.Error()
				return cached, nil
			}
		}
		return nil, err
	}
	if c.Cache != nil {
		_ = c.Cache.Put(key, r) // a cache that cannot be written only costs a fetch
	}
	return r, nil
}

func (c *Client) search(ctx context.Context, query string) (*Result, error) {
	pageSize, maxPages := c.PageSize, c.MaxPages
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	if maxPages <= 0 {
		maxPages = DefaultMaxPages
	}
	r := &Result{FetchedAt: time.Now()}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxPages {
			r.Truncated = true
			break
		}
		q := url.Values{"version": {"latest"}, "limit": {strconv.Itoa(pageSize)}}
		if query != "" {
			q.Set("search", query)
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var l list
		if err := c.getJSON(ctx, "/v0.1/servers?"+q.Encode(), &l); err != nil {
			return nil, err
		}
		for _, s := range l.Servers {
			if e := s.entry(c.base()); e.Meta.Status == StatusActive {
				r.Entries = append(r.Entries, e)
			}
		}
		next := l.Metadata.NextCursor
		if next == "" || next == cursor || len(l.Servers) == 0 {
			break
		}
		cursor = next
	}
	return r, nil
}

// Get fetches one version of the server named name; version "" or
// "latest" means its latest version. An entry that is not active is
// [ErrNotFound], with its status in the message.
func (c *Client) Get(ctx context.Context, name, version string) (Entry, error) {
	if version == "" {
		version = "latest"
	}
	var r response
	p := "/v0.1/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
	if err := c.getJSON(ctx, p, &r); err != nil {
		return Entry{}, err
	}
	e := r.entry(c.base())
	if e.Server.Name != name {
		return Entry{}, fmt.Errorf("registry %s: asked for %q, got %q", c.base(), name, e.Server.Name)
	}
	if e.Meta.Status != StatusActive {
		return Entry{}, fmt.Errorf("registry %s: %s@%s is %s: %w", c.base(), name, e.Server.Version, e.Meta.Status, ErrNotFound)
	}
	return e, nil
}

// base is the registry URL without a trailing slash.
func (c *Client) base() string { return strings.TrimRight(c.URL, "/") }

// getJSON GETs path and decodes the answer, read through the size cap.
func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	u := c.base() + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("registry %s: %w", redact.URL(c.base()), err)
	}
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("registry %s: %w", redact.URL(c.base()), redact.Error(err))
	}
	defer resp.Body.Close()
	body, err := readCapped(resp.Body, c.maxBytes())
	if err != nil {
		return fmt.Errorf("registry %s: GET %s: %w", redact.URL(c.base()), redact.URL(u), err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("registry %s: GET %s: %w", redact.URL(c.base()), redact.URL(u), ErrNotFound)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("registry %s: GET %s: %s: %s", redact.URL(c.base()), redact.URL(u), resp.Status, redact.Excerpt(body, 300))
	}
	if err := statefile.Unmarshal(body, v); err != nil {
		return fmt.Errorf("registry %s: GET %s: not the registry API's JSON: %w", redact.URL(c.base()), redact.URL(u), err)
	}
	return nil
}

func (c *Client) maxBytes() int64 {
	if c.MaxBytes > 0 {
		return c.MaxBytes
	}
	return DefaultMaxBytes
}

// readCapped reads r to its end, failing once it exceeds max bytes.
func readCapped(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("answer larger than %d bytes", max)
	}
	return b, nil
}
