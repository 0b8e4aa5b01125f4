package session

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A ToolsCache keeps tools/list results across sessions and runtime
// restarts, for as long as the server said they stay fresh (the ttlMs of
// its list results: SEP-2549 list TTLs). Keys are opaque strings the
// session derives from the runtime's identity of the server (
// [Options.CacheKey]), the negotiated protocol version and the server's
// name and version. Implementations must be safe for concurrent use; a
// failed Load is a miss.
type ToolsCache interface {
	Load(key string) (tools []*mcp.Tool, ok bool)
	Store(key string, tools []*mcp.Tool, ttl time.Duration)
	Forget(key string)
}

// maxCacheTTL bounds how long a server's list stays fresh, whatever it
// says: a server that changed without telling is listed again a day later
// at the latest.
const maxCacheTTL = 24 * time.Hour

// cacheKey is the cache key of the session's current connection, or ""
// when it has no cache.
func (s *Session) cacheKey(info Info) string {
	if s.opts.ToolsCache == nil || s.opts.CacheKey == "" {
		return ""
	}
	return s.opts.CacheKey + "\x00" + info.ProtocolVersion + "\x00" + info.ServerName + "\x00" + info.ServerVersion
}

// listToolsCached is listTools through the ToolsCache: a fresh cached
// catalog is used without a tools/list request; otherwise the tools are
// listed, and kept when every page of the walk carried a positive ttlMs.
// A catalog whose schemas bind parameters to headers (x-mcp-header) is
// never served from the cache, since the SDK needs to have listed those
// tools itself to send the headers.
func (s *Session) listToolsCached(ctx context.Context, cs *mcp.ClientSession, info Info) ([]*mcp.Tool, error) {
	key := s.cacheKey(info)
	if key == "" {
		return s.listTools(ctx, cs, info.Capabilities)
	}
	if tools, ok := s.opts.ToolsCache.Load(key); ok && !bindsHeaders(tools) {
		s.opts.Logger.Debug("tools/list served from the cache", "server", s.opts.ID, "tools", len(tools))
		return tools, nil
	}
	s.ttls.start()
	tools, err := s.listTools(ctx, cs, info.Capabilities)
	ttl := s.ttls.end()
	if err != nil {
		return nil, err
	}
	if ttl > 0 && !bindsHeaders(tools) {
		s.opts.ToolsCache.Store(key, tools, min(ttl, maxCacheTTL))
	} else {
		s.opts.ToolsCache.Forget(key)
	}
	return tools, nil
}

// forgetCachedTools drops the cached catalog of the current connection:
// the server said its tools changed.
func (s *Session) forgetCachedTools() {
	s.mu.Lock()
	info := s.info
	s.mu.Unlock()
	if key := s.cacheKey(info); key != "" {
		s.opts.ToolsCache.Forget(key)
	}
}

// bindsHeaders reports whether a tool's input schema binds a parameter to
// an HTTP header (x-mcp-header).
func bindsHeaders(tools []*mcp.Tool) bool {
	for _, t := range tools {
		if t == nil || t.InputSchema == nil {
			continue
		}
		var raw []byte
		switch v := t.InputSchema.(type) {
		case json.RawMessage:
			raw = v
		default:
			raw, _ = json.Marshal(v)
		}
		if bytes.Contains(raw, []byte(`"x-mcp-header"`)) {
			return true
		}
	}
	return false
}

// ttlWalks records the smallest ttlMs of the tools/list answers of one
// catalog walk, through the sending middleware [Session.observeListTTL].
// A page without a positive ttlMs makes the whole walk uncacheable.
type ttlWalks struct {
	mu     sync.Mutex
	active int           // walks in progress; pages count for all of them
	min    time.Duration // -1: a page was not cacheable
	seen   bool
}

func (w *ttlWalks) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.active == 0 {
		w.min, w.seen = 0, false
	}
	w.active++
}

func (w *ttlWalks) end() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.active--
	if !w.seen || w.min < 0 {
		return 0
	}
	return w.min
}

func (w *ttlWalks) page(ttl time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.active == 0 {
		return
	}
	switch {
	case ttl <= 0:
		w.min = -1
	case !w.seen || (w.min > 0 && ttl < w.min):
		w.min = ttl
	}
	w.seen = true
}

// observeListTTL is the sending middleware that reports the ttlMs of each
// tools/list answer to the walk in progress.
func (s *Session) observeListTTL(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "tools/list" && err == nil {
			if r, ok := res.(*mcp.ListToolsResult); ok && r != nil {
				s.ttls.page(time.Duration(r.TTLMs) * time.Millisecond)
			}
		}
		return res, err
	}
}
