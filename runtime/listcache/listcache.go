// Package listcache keeps servers' tools/list results on disk for as long
// as each server said they stay fresh (its ttlMs, SEP-2549), so that a
// restarted host or a reconnect skips listing a large catalog again. It
// implements session.ToolsCache.
//
// One file per key, named by the key's SHA-256: the key (which the runtime
// derives from everything that could change the catalog, header values
// included) is never written, and a tampered or unreadable file is a miss.
package listcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/internal/statefile"
)

// MaxFileBytes bounds one cached catalog: a larger one is not kept (and a
// larger file is not read).
const MaxFileBytes = 64 << 20

// MaxTTL bounds how long an entry is served, whatever its file says.
const MaxTTL = 24 * time.Hour

// Dir is a cache in one directory.
type Dir struct {
	// Path is the directory; it is created on the first Store.
	Path string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives why a catalog was not kept; nil discards it.
	Logger *slog.Logger
}

// DefaultPath is the cache directory of the user: $MCP_HOST_CACHE_DIR, or
// mcp-host/tools in the system's user cache directory.
func DefaultPath() (string, error) {
	if d := os.Getenv("MCP_HOST_CACHE_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("tools cache: %w", err)
	}
	return filepath.Join(base, "mcp-host", "tools"), nil
}

// CacheDir is the directory sub of the host's cache: sub in
// $MCP_HOST_CACHE_DIR when it is set, else mcp-host/sub in the system's
// user cache directory. Other caches of the host (kept tool results) live
// beside the tools cache this way.
func CacheDir(sub string) (string, error) {
	if d := os.Getenv("MCP_HOST_CACHE_DIR"); d != "" {
		return filepath.Join(d, sub), nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	return filepath.Join(base, "mcp-host", sub), nil
}

// entry is the file's content. Its times are wall-clock times, the only
// ones that survive the process; see [Dir.Load] for a clock that jumps.
type entry struct {
	Key       string      `json:"key"` // hex SHA-256 of the key
	SavedAt   time.Time   `json:"saved_at"`
	ExpiresAt time.Time   `json:"expires_at"`
	Tools     []*mcp.Tool `json:"tools"`
}

// stored is entry as read back: the tools stay raw until decodeTools.
type stored struct {
	Key       string            `json:"key"`
	SavedAt   time.Time         `json:"saved_at"` // zero in files of older hosts
	ExpiresAt time.Time         `json:"expires_at"`
	Tools     []json.RawMessage `json:"tools"`
}

// clockSkew is how far in the future a saved time may lie and still be
// taken as written by this clock.
const clockSkew = time.Minute

// decodeTools decodes kept tools with their schemas as json.RawMessage,
// as the session's own lean tools/list gives them: decoding a schema into
// maps, or decoding with encoding/json's reflection, would cost what
// listing saves (BenchmarkConnect10kListTTL in runtime/session).
func decodeTools(raws []json.RawMessage) ([]*mcp.Tool, error) {
	tools := make([]*mcp.Tool, len(raws))
	for i, raw := range raws {
		in, out := new(json.RawMessage), new(json.RawMessage)
		t := &mcp.Tool{InputSchema: in, OutputSchema: out}
		if rest, err := fastjson.Parse(raw, t, fastjson.ZeroCopy); err != nil || len(rest) != 0 {
			return nil, errors.Join(err, errors.New("data after the tool"))
		}
		if t.Name == "" {
			return nil, fmt.Errorf("tool %d has no name", i)
		}
		t.InputSchema, t.OutputSchema = nil, nil
		if len(*in) > 0 && string(*in) != "null" {
			t.InputSchema = *in
		}
		if len(*out) > 0 && string(*out) != "null" {
			t.OutputSchema = *out
		}
		tools[i] = t
	}
	return tools, nil
}

func (d *Dir) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *Dir) log() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

func (d *Dir) file(hash string) string { return filepath.Join(d.Path, hash[:32]+".json") }

// Load returns the tools kept under key while they are fresh. The file is
// input like any other: one over MaxFileBytes, nested deeper than
// statefile.MaxDepth, not for key, expiring further than MaxTTL away (no
// host wrote that) or with a tool without a name is a miss; the file of
// an expired or far-future entry is removed.
//
// A clock that jumps: an entry saved more than a minute in the future was
// written before the clock was set back, and is a miss, so a clock set
// back serves nothing longer than the server's TTL said; a clock jumped
// forward makes an entry expire early, which costs one tools/list.
func (d *Dir) Load(key string) ([]*mcp.Tool, bool) {
	hash := hashKey(key)
	tools, err := d.load(hash)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			d.log().Debug("tools cache: miss", "error", err)
		}
		return nil, false
	}
	return tools, true
}

func (d *Dir) load(hash string) ([]*mcp.Tool, error) {
	path := d.file(hash)
	raw, err := statefile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	// The parser below recurses once per level of nesting.
	if err := statefile.CheckDepth(raw, statefile.MaxDepth); err != nil {
		return nil, fmt.Errorf("tools cache %s: %w", path, err)
	}
	// One pass over the file, whose bytes the tools' strings and schemas
	// then point into (ZeroCopy): the file is read once and not copied.
	var e stored
	if rest, err := fastjson.Parse(raw, &e, fastjson.ZeroCopy); err != nil || len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("tools cache %s: not a cache entry: %w", path, errors.Join(err, errors.New("data after the entry")))
	}
	if e.Key != hash {
		return nil, fmt.Errorf("tools cache %s: the entry is for another key", path)
	}
	now := d.now()
	if !now.Before(e.ExpiresAt) || e.ExpiresAt.After(now.Add(MaxTTL)) || e.SavedAt.After(now.Add(clockSkew)) {
		_ = os.Remove(path)
		return nil, fmt.Errorf("tools cache %s: expired, expiring further than %s away, or saved in the future", path, MaxTTL)
	}
	tools, err := decodeTools(e.Tools)
	if err != nil {
		return nil, fmt.Errorf("tools cache %s: %w", path, err)
	}
	return tools, nil
}

// Store keeps tools under key for ttl. Failures are logged, not returned:
// a cache that cannot write only costs a tools/list.
func (d *Dir) Store(key string, tools []*mcp.Tool, ttl time.Duration) {
	if ttl <= 0 {
		d.Forget(key)
		return
	}
	hash := hashKey(key)
	now := d.now()
	raw, err := json.Marshal(entry{Key: hash, SavedAt: now, ExpiresAt: now.Add(min(ttl, MaxTTL)), Tools: tools})
	if err == nil && len(raw) > MaxFileBytes {
		err = errors.New("the catalog is larger than the cache keeps")
	}
	if err == nil {
		if err = os.MkdirAll(d.Path, 0o700); err == nil {
			err = atomicfile.WriteCache(d.file(hash), raw, 0o600)
		}
	}
	if err != nil {
		d.log().Debug("tools cache: not kept", "error", err)
	}
}

// Forget removes what is kept under key.
func (d *Dir) Forget(key string) {
	if err := os.Remove(d.file(hashKey(key))); err != nil && !errors.Is(err, os.ErrNotExist) {
		d.log().Debug("tools cache: not forgotten", "error", err)
	}
}
