package apps

import (
	"context"
	"sync"

	"github.com/mcp-host/mcp-host/runtime/hostfetch"
)

// DefaultCacheBytes bounds the HTML a Cache keeps in total.
const DefaultCacheBytes = 32 << 20

// A Cache keeps checked UI resources per server connection: a resource is
// read once per connection (concurrent readers share the read), and read
// again after the server reconnected. Failures are not kept: the next Get
// tries again, but a resource refused for its size is refused from the
// Fetcher's memory for a while, without a read. The oldest entries go when
// the total HTML would pass its bound.
type Cache struct {
	// MaxBytes bounds one resource (DefaultMaxBytes when <= 0);
	// TotalBytes bounds the cache (DefaultCacheBytes when <= 0).
	MaxBytes   int
	TotalBytes int
	// Fetcher reads the resources (a Fetcher of the Cache's own when nil).
	Fetcher *hostfetch.Fetcher

	own hostfetch.Fetcher

	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	order   []cacheKey // oldest first
	size    int
}

type cacheKey struct{ server, uri string }

type cacheEntry struct {
	src   Reader // the connection it was read over
	ready chan struct{}
	res   *Resource
	err   error
	// counted: res is in Cache.size (set under Cache.mu).
	counted bool
}

// Get returns the checked resource ref.URI of ref.Server, reading it with
// src unless it was read over the same src before. The Ref of the result
// names the tool of the first read.
func (c *Cache) Get(ctx context.Context, src Reader, ref Ref) (*Resource, error) {
	k := cacheKey{ref.Server, ref.URI}
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[cacheKey]*cacheEntry{}
	}
	e, ok := c.entries[k]
	if ok && e.src != src {
		c.dropLocked(k)
		ok = false
	}
	if !ok {
		e = &cacheEntry{src: src, ready: make(chan struct{})}
		c.entries[k] = e
		c.order = append(c.order, k)
		c.mu.Unlock()
		e.res, e.err = fetch(ctx, c.fetcher(), src, ref, c.MaxBytes)
		close(e.ready)
		c.mu.Lock()
		if c.entries[k] == e {
			if e.err != nil {
				c.dropLocked(k)
			} else {
				c.size += len(e.res.HTML)
				e.counted = true
				c.evictLocked(k)
			}
		}
		c.mu.Unlock()
		return e.res, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.err != nil {
		// Another caller's read failed (perhaps its context ended): read
		// afresh rather than share its failure.
		return fetch(ctx, c.fetcher(), src, ref, c.MaxBytes)
	}
	return e.res, nil
}

// SharedFetcher returns the Fetcher the Cache reads through, for the
// host's other reads of the same servers (an app's reads of other
// resources), so that they share its reads and its memory of refusals.
func (c *Cache) SharedFetcher() *hostfetch.Fetcher { return c.fetcher() }

func (c *Cache) fetcher() *hostfetch.Fetcher {
	if c.Fetcher != nil {
		return c.Fetcher
	}
	return &c.own
}

// Forget drops every resource of server (it was removed or reconnected).
func (c *Cache) Forget(server string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if k.server == server {
			c.dropLocked(k)
		}
	}
}

// Len returns the number of entries, for tests.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *Cache) dropLocked(k cacheKey) {
	e, ok := c.entries[k]
	if !ok {
		return
	}
	delete(c.entries, k)
	if e.counted {
		c.size -= len(e.res.HTML)
	}
	for i, o := range c.order {
		if o == k {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}

// evictLocked drops the oldest finished entries, other than keep, while
// the cache is over its bound.
func (c *Cache) evictLocked(keep cacheKey) {
	total := c.TotalBytes
	if total <= 0 {
		total = DefaultCacheBytes
	}
	for i := 0; c.size > total && i < len(c.order); {
		k := c.order[i]
		if k == keep || !c.entries[k].counted {
			i++
			continue
		}
		c.dropLocked(k)
	}
}
