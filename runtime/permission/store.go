package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

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
//	  "tools":{"<original tool name>":"<sha256 of the definition>"}}}}
type fileData struct {
	Version int                     `json:"version"`
	Servers map[string]*serverEntry `json:"servers"`
}

type serverEntry struct {
	// AllTools records "always allow this server".
	AllTools bool `json:"all_tools,omitempty"`
	// Tools records "always allow this tool", pinned to the definition the
	// user saw.
	Tools map[string]string `json:"tools,omitempty"`
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
}

// OpenStore loads the permissions file at path (a project or global path
// chosen by the caller). A missing file is an empty store; an empty path
// gives a store that remembers only for the life of the process.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, data: fileData{Version: storeVersion, Servers: map[string]*serverEntry{}}}
	if path == "" {
		return s, nil
	}
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
	})
}

// AllowServer records "always allow this server": every tool of the
// server, whatever its definition.
func (s *Store) AllowServer(server string) error {
	return s.update(func(d *fileData) { entry(d, server).AllTools = true })
}

// Forget removes the answers about a tool, or about the whole server and
// all its tools when tool is empty, under every identity the server id
// had.
func (s *Store) Forget(server, tool string) error {
	return s.update(func(d *fileData) {
		for k, e := range d.Servers {
			if k != server && !strings.HasPrefix(k, server+"|") {
				continue
			}
			if tool == "" {
				delete(d.Servers, k)
				continue
			}
			delete(e.Tools, tool)
		}
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
	s.data = d
	return nil
}

// writeFile replaces path atomically (mode 0600).
func writeFile(path string, d *fileData) error {
	if err := atomicfile.WriteJSON(path, d, 0o600); err != nil {
		return fmt.Errorf("permissions file %s: %w", path, err)
	}
	return nil
}
