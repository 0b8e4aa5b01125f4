package hostfetch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/singleflight"
)

// DefaultRefusalTTL is the default of [Fetcher.RefusalTTL].
const DefaultRefusalTTL = time.Minute

// maxRefusals bounds the refusals a Fetcher remembers; past it, the oldest
// go first.
const maxRefusals = 1024

// A Fetcher reads resources with Read, sharing concurrent reads of the same
// resource and remembering refusals for size. The zero value is ready to
// use; a Fetcher must not be copied after first use.
type Fetcher struct {
	// RefusalTTL is how long a refusal for size is answered from memory
	// (DefaultRefusalTTL when <= 0).
	RefusalTTL time.Duration
	// Now is the clock (time.Now when nil), for tests.
	Now func() time.Time

	group   singleflight.Group
	mu      sync.Mutex
	refused map[fetchKey]refusal
}

type fetchKey struct {
	server, uri string
	limit       int
}

type refusal struct {
	err   error
	until time.Time
}

// Read reads uri of server with r as the package's Read does. A read of the
// same server, URI and limit already under way is shared rather than made
// again (each caller still leaves when its own ctx ends); a refusal for
// size is returned from memory, without a read, for RefusalTTL.
func (f *Fetcher) Read(ctx context.Context, server string, r Reader, uri string, limit int) (*mcp.ReadResourceResult, error) {
	k := fetchKey{server, uri, limit}
	if err := f.remembered(k); err != nil {
		return nil, err
	}
	// The shared read outlives a caller that leaves; the session's own
	// request timeout still ends it.
	shared := context.WithoutCancel(ctx)
	ch := f.group.DoChan(server+"\x00"+strconv.Itoa(limit)+"\x00"+uri, func() (any, error) {
		res, err := Read(shared, r, uri, limit)
		if errors.Is(err, ErrTooLarge) {
			f.remember(k, err)
		}
		return res, err
	})
	select {
	case out := <-ch:
		if out.Err != nil {
			return nil, fmt.Errorf("server %q: %w", server, out.Err)
		}
		return out.Val.(*mcp.ReadResourceResult), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("server %q: resource %q: %w", server, uri, ctx.Err())
	}
}

func (f *Fetcher) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// remembered returns the refusal of k, if one is remembered and not stale.
func (f *Fetcher) remembered(k fetchKey) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.refused[k]
	if !ok {
		return nil
	}
	if !f.now().Before(r.until) {
		delete(f.refused, k)
		return nil
	}
	return fmt.Errorf("server %q: %w (refused %s ago, not read again before %s)", k.server, r.err,
		(f.ttl() - r.until.Sub(f.now())).Round(time.Second), r.until.UTC().Format(time.TimeOnly))
}

func (f *Fetcher) ttl() time.Duration {
	if f.RefusalTTL <= 0 {
		return DefaultRefusalTTL
	}
	return f.RefusalTTL
}

// remember keeps the refusal err of k for RefusalTTL.
func (f *Fetcher) remember(k fetchKey, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refused == nil {
		f.refused = map[fetchKey]refusal{}
	}
	now := f.now()
	if len(f.refused) >= maxRefusals {
		var oldest fetchKey
		first := true
		for o, r := range f.refused {
			if !now.Before(r.until) {
				delete(f.refused, o)
				continue
			}
			if first || r.until.Before(f.refused[oldest].until) {
				oldest, first = o, false
			}
		}
		if len(f.refused) >= maxRefusals {
			delete(f.refused, oldest)
		}
	}
	f.refused[k] = refusal{err: err, until: now.Add(f.ttl())}
}
