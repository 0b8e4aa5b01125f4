package listcache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/internal/statefile"
)

// MaxCatalogAge bounds how old a kept catalog may be and still be offered
// for a server that has not started: an older one is a miss (the server
// starts to list its tools) and its file is removed.
const MaxCatalogAge = 30 * 24 * time.Hour

// DefaultMaxCatalogs bounds how many catalogs a [Catalogs] keeps: past
// it, storing one removes the least recently written.
const DefaultMaxCatalogs = 256

// maxNameBytes bounds a kept server name or version; a longer one is
// dropped (it came from a server and is only ever shown).
const maxNameBytes = 256

// MaxInstructionsBytes bounds kept server instructions: longer ones are
// cut when stored, and dropped when read back (no host wrote them).
const MaxInstructionsBytes = 16 << 10

// Catalogs keeps each server's last catalog, whatever its list TTL says,
// so that a server that starts on first use (a "lazy" server) can be
// offered to the model before it runs. One file per key in Dir.Path, named
// by the key's SHA-256 as in [Dir]; the key is never written. A file that
// is too large, too deep, for another key, from the future, older than
// [MaxCatalogAge] or otherwise unreadable is a miss.
type Catalogs struct {
	Dir
	// MaxEntries bounds the files kept; 0 means DefaultMaxCatalogs.
	MaxEntries int
}

// Catalog is one server's kept catalog and the identity the server gave
// in the handshake that listed it.
type Catalog struct {
	// ServerName and ServerVersion are the server's own words from the
	// handshake (untrusted text: sanitize before showing).
	ServerName    string
	ServerVersion string
	// Instructions are the server's instructions from that handshake
	// (untrusted text), at most MaxInstructionsBytes.
	Instructions string
	// SavedAt is when the catalog was listed.
	SavedAt time.Time
	// Tools is the server's tools/list, before include/exclude filters.
	Tools []*mcp.Tool
}

// catalogEntry is a catalog file's content.
type catalogEntry struct {
	Key           string      `json:"key"` // hex SHA-256 of the key
	SavedAt       time.Time   `json:"saved_at"`
	ServerName    string      `json:"server_name,omitempty"`
	ServerVersion string      `json:"server_version,omitempty"`
	Instructions  string      `json:"instructions,omitempty"`
	Tools         []*mcp.Tool `json:"tools"`
}

// storedCatalog is catalogEntry as read back, the tools still raw.
type storedCatalog struct {
	Key           string            `json:"key"`
	SavedAt       time.Time         `json:"saved_at"`
	ServerName    string            `json:"server_name"`
	ServerVersion string            `json:"server_version"`
	Instructions  string            `json:"instructions"`
	Tools         []json.RawMessage `json:"tools"`
}

// Load returns the catalog kept under key, if there is a valid one.
func (c *Catalogs) Load(key string) (*Catalog, bool) {
	cat, err := c.load(hashKey(key))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			c.log().Debug("catalog cache: miss", "error", err)
		}
		return nil, false
	}
	return cat, true
}

func (c *Catalogs) load(hash string) (*Catalog, error) {
	path := c.file(hash)
	raw, err := statefile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	if err := statefile.CheckDepth(raw, statefile.MaxDepth); err != nil {
		return nil, fmt.Errorf("catalog cache %s: %w", path, err)
	}
	var e storedCatalog
	if rest, err := fastjson.Parse(raw, &e, fastjson.ZeroCopy); err != nil || len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("catalog cache %s: not a catalog entry: %w", path, errors.Join(err, errors.New("data after the entry")))
	}
	if e.Key != hash {
		return nil, fmt.Errorf("catalog cache %s: the entry is for another key", path)
	}
	now := c.now()
	// A minute of clock skew is tolerated; a later date was not written
	// by a host.
	if e.SavedAt.IsZero() || e.SavedAt.After(now.Add(time.Minute)) || now.Sub(e.SavedAt) > MaxCatalogAge {
		_ = os.Remove(path)
		return nil, fmt.Errorf("catalog cache %s: older than %s, or from the future", path, MaxCatalogAge)
	}
	tools, err := decodeTools(e.Tools)
	if err != nil {
		return nil, fmt.Errorf("catalog cache %s: %w", path, err)
	}
	if len(e.Instructions) > MaxInstructionsBytes {
		return nil, fmt.Errorf("catalog cache %s: instructions over %d bytes", path, MaxInstructionsBytes)
	}
	return &Catalog{ServerName: boundName(e.ServerName), ServerVersion: boundName(e.ServerVersion), Instructions: strings.Clone(e.Instructions), SavedAt: e.SavedAt, Tools: tools}, nil
}

// boundName drops a name longer than maxNameBytes; it is copied out of
// the file's buffer.
func boundName(s string) string {
	if len(s) > maxNameBytes {
		return ""
	}
	return strings.Clone(s)
}

// Store keeps cat under key, replacing what was kept, and removes the
// oldest files past MaxEntries. Failures are logged, not returned: a
// catalog that cannot be kept only means the server starts to list it.
func (c *Catalogs) Store(key string, cat *Catalog) {
	hash := hashKey(key)
	saved := cat.SavedAt
	if saved.IsZero() {
		saved = c.now()
	}
	raw, err := json.Marshal(catalogEntry{Key: hash, SavedAt: saved, ServerName: boundName(cat.ServerName), ServerVersion: boundName(cat.ServerVersion), Instructions: cutUTF8(cat.Instructions, MaxInstructionsBytes), Tools: cat.Tools})
	if err == nil && len(raw) > MaxFileBytes {
		err = errors.New("the catalog is larger than the cache keeps")
	}
	if err == nil {
		if err = os.MkdirAll(c.Path, 0o700); err == nil {
			err = atomicfile.WriteCache(c.file(hash), raw, 0o600)
		}
	}
	if err != nil {
		c.log().Debug("catalog cache: not kept", "error", err)
		return
	}
	c.prune()
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Forget removes what is kept under key.
func (c *Catalogs) Forget(key string) { c.Dir.Forget(key) }

// prune removes the least recently written files past MaxEntries.
func (c *Catalogs) prune() {
	max := c.MaxEntries
	if max <= 0 {
		max = DefaultMaxCatalogs
	}
	ents, err := os.ReadDir(c.Path)
	if err != nil || len(ents) <= max {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, file{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for i := 0; i < len(files)-max; i++ {
		_ = os.Remove(filepath.Join(c.Path, files[i].name))
	}
}
