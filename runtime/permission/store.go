package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/internal/statefile"
)

// storeVersion is the version of the permissions file format. Version 1
// keyed answers by server id alone; version 2 keys them by "<id>|<identity
// key>" (see [Identity]). Version 1 files are read, their entries adopted
// by the server the user's own configuration defines under that id (see
// [Gate.Check]), and written back as version 2.
const storeVersion = 2

// MaxFileBytes bounds the permissions file the store reads.
const MaxFileBytes = 16 << 20

// fileData is the permissions file:
//
//	{"version":2,"servers":{"<server id>|<identity key>":{"all_tools":true,
//	  "all_tools_at":"<RFC 3339 time>",
//	  "tools":{"<original tool name>":"<sha256 of the definition>"},
//	  "tools_at":{"<original tool name>":"<RFC 3339 time>"}}}}
type fileData struct {
	Version int                     `json:"version"`
	Servers map[string]*serverEntry `json:"servers"`
}

type serverEntry struct {
	// AllTools records "always allow this server"; AllToolsAt when.
	AllTools   bool      `json:"all_tools,omitempty"`
	AllToolsAt time.Time `json:"all_tools_at,omitzero"`
	// Tools records "always allow this tool", pinned to the definition the
	// user saw; ToolsAt when each was given. Answers remembered before
	// times were kept have none.
	Tools   map[string]string    `json:"tools,omitempty"`
	ToolsAt map[string]time.Time `json:"tools_at,omitempty"`
}

// A Store keeps the "always" answers: per tool, pinned to the sha256 of the
// tool's definition, and per server. It is backed by a JSON file (mode 0600,
// replaced atomically) or, with an empty path, by memory only. Safe for
// concurrent use; changes made by another process are merged on the next
// write.
type Store struct {
	path string
	mu   sync.Mutex
	data fileData
	// seen is the file as it was when data was read or written: another
	// process's change (host mcp permissions revoke) shows as a
	// difference, and a lookup that would allow reads the file again.
	seen fs.FileInfo
	// now is the clock answers are stamped with.
	now func() time.Time
}

// OpenStore loads the permissions file at path (a project or global path
// chosen by the caller). A missing file is an empty store; an empty path
// gives a store that remembers only for the life of the process.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, data: fileData{Version: storeVersion, Servers: map[string]*serverEntry{}}, now: time.Now}
	if path == "" {
		return s, nil
	}
	s.seen = stat(path)
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	s.data = data
	return s, nil
}

// Path returns the file the store writes to, or "" for a memory store.
func (s *Store) Path() string { return s.path }

// readFile reads and checks a permissions file; a missing file is empty.
func readFile(path string) (fileData, error) {
	d := fileData{Version: storeVersion, Servers: map[string]*serverEntry{}}
	// Bounded and depth-checked: the file is input like any other.
	err := statefile.Decode("permissions file", path, MaxFileBytes, &d)
	if errors.Is(err, fs.ErrNotExist) {
		return fileData{Version: storeVersion, Servers: map[string]*serverEntry{}}, nil
	}
	if err != nil {
		return d, err
	}
	if d.Version == 1 {
		d.Version = storeVersion
	}
	if d.Version != storeVersion {
		return d, fmt.Errorf("permissions file %s: unsupported version %d (want %d)", path, d.Version, storeVersion)
	}
	if d.Servers == nil {
		d.Servers = map[string]*serverEntry{}
	}
	for id, e := range d.Servers {
		if e == nil {
			delete(d.Servers, id)
		}
	}
	return d, nil
}

// Lookup reports whether the tool is always allowed, either on its own with
// this definition digest or through its server. changed reports that the
// tool was always allowed with a different definition.
func (s *Store) Lookup(server, tool, digest string) (allowed, changed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	allowed, changed = s.lookup(server, tool, digest)
	if allowed && !s.fresh() {
		// Another process changed the file since: an answer it took back
		// must not allow this call. A file that cannot be read allows
		// nothing (the user is asked).
		if !s.reload() {
			return false, false
		}
		allowed, changed = s.lookup(server, tool, digest)
	}
	return allowed, changed
}

// lookup is Lookup on the answers in memory. The caller holds s.mu.
func (s *Store) lookup(server, tool, digest string) (allowed, changed bool) {
	e := s.data.Servers[server]
	if e == nil {
		return false, false
	}
	if e.AllTools {
		return true, false
	}
	pinned, ok := e.Tools[tool]
	if !ok {
		return false, false
	}
	return pinned == digest, pinned != digest
}

// AllowTool records "always allow this tool" for the definition digest,
// replacing an earlier digest.
func (s *Store) AllowTool(server, tool, digest string) error {
	return s.update(func(d *fileData) {
		e := entry(d, server)
		if e.Tools == nil {
			e.Tools = map[string]string{}
		}
		e.Tools[tool] = digest
		if e.ToolsAt == nil {
			e.ToolsAt = map[string]time.Time{}
		}
		e.ToolsAt[tool] = s.now().UTC()
	})
}

// AllowServer records "always allow this server": every tool of the
// server, whatever its definition.
func (s *Store) AllowServer(server string) error {
	return s.update(func(d *fileData) {
		e := entry(d, server)
		e.AllTools, e.AllToolsAt = true, s.now().UTC()
	})
}

// adoptLegacy moves the answers remembered under the bare server id (a
// version 1 file) to key, unless key already has answers of its own. The
// caller vouches that key is the server the user's configuration defines.
// A failed write leaves the answers where they were and the lookup falls
// through to asking.
func (s *Store) adoptLegacy(id, key string) {
	s.mu.Lock()
	_, legacy := s.data.Servers[id]
	_, taken := s.data.Servers[key]
	s.mu.Unlock()
	if !legacy || taken {
		return
	}
	_ = s.update(func(d *fileData) {
		e := d.Servers[id]
		if e == nil || d.Servers[key] != nil {
			return
		}
		d.Servers[key] = e
		delete(d.Servers, id)
	})
}

func entry(d *fileData, server string) *serverEntry {
	e := d.Servers[server]
	if e == nil {
		e = &serverEntry{}
		d.Servers[server] = e
	}
	return e
}

// update applies change to the file's current contents (so answers another
// process stored meanwhile are kept), writes it and adopts the result.
func (s *Store) update(change func(*fileData)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		change(&s.data)
		return nil
	}
	d, err := readFile(s.path)
	if err != nil {
		return err
	}
	change(&d)
	if err := writeFile(s.path, &d); err != nil {
		return err
	}
	s.data, s.seen = d, stat(s.path)
	return nil
}

// writeFile replaces path atomically (mode 0600).
func writeFile(path string, d *fileData) error {
	if err := atomicfile.WriteJSON(path, d, 0o600); err != nil {
		return fmt.Errorf("permissions file: %w", err) // it names path
	}
	return nil
}
