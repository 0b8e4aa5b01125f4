package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/internal/statefile"
)

// DefaultCacheTTL is how long a cached search answer is used without
// asking the registry again.
const DefaultCacheTTL = time.Hour

// maxCacheFile caps a cache file read back.
const maxCacheFile = 16 << 20

// Cache keeps search answers in files under Dir, one per registry and
// query.
type Cache struct {
	// Dir holds the files; see [DefaultCacheDir].
	Dir string
	// TTL is how long an answer is fresh; 0 means DefaultCacheTTL.
	TTL time.Duration
}

// DefaultCacheDir is $MCP_HOST_CACHE_DIR/registry when that is set, else
// mcp-host/registry in the user's cache directory.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("MCP_HOST_CACHE_DIR"); d != "" {
		return filepath.Join(d, "registry"), nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("registry cache: %w", err)
	}
	return filepath.Join(base, "mcp-host", "registry"), nil
}

type cached struct {
	Key    string  `json:"key"`
	Result *Result `json:"result"`
}

func (c *Cache) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(c.Dir, hex.EncodeToString(sum[:16])+".json")
}

// Get returns the answer kept for key: a fresh one, or with stale any.
func (c *Cache) Get(key string, stale bool) (*Result, bool) {
	var v cached
	if statefile.Decode("registry cache", c.path(key), maxCacheFile, &v) != nil || v.Key != key || v.Result == nil {
		return nil, false
	}
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	// FetchedAt is a wall-clock time read back from the file: an answer
	// fetched "in the future" (the clock was set back since) has no
	// knowable age and is not fresh, so a clock set back does not keep an
	// answer fresh until it catches up; a jump forward only asks again.
	if age := time.Since(v.Result.FetchedAt); !stale && (age > ttl || age < -time.Minute) {
		return nil, false
	}
	v.Result.FromCache = true
	return v.Result, true
}

// Put keeps r for key.
func (c *Cache) Put(key string, r *Result) error {
	data, err := json.Marshal(cached{Key: key, Result: r})
	if err != nil {
		return fmt.Errorf("registry cache: %w", err)
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return fmt.Errorf("registry cache: %w", err)
	}
	// A cache: a torn file after a crash of the system is a miss for Get.
	if err := atomicfile.WriteCache(c.path(key), data, 0o600); err != nil {
		return fmt.Errorf("registry cache: %w", err)
	}
	return nil
}

// Age renders how old r is for a table: "fresh" for a new answer, else
// "cached 5m" and the like.
func Age(r *Result, now time.Time) string {
	if !r.FromCache {
		return "fresh"
	}
	d := now.Sub(r.FetchedAt).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("cached %ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("cached %dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("cached %dh", int(d.Hours()))
	}
	return fmt.Sprintf("cached %dd", int(d.Hours()/24))
}
