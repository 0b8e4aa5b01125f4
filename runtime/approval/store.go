package approval

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/internal/statefile"
)

// fileVersion is the version of the approvals file format.
const fileVersion = 1

// MaxFileBytes bounds the approvals file the store reads.
const MaxFileBytes = 16 << 20

// fileData is the approvals file, kept in the user's own config directory
// (never in a project):
//
//	{"version":1,"projects":{"<project config file>":{"<server id>":
//	  {"digest":"<sha256>","decision":"approved","at":"<RFC 3339>"}}}}
type fileData struct {
	Version  int                              `json:"version"`
	Projects map[string]map[string]*fileEntry `json:"projects"`
}

type fileEntry struct {
	Digest   string    `json:"digest"`
	Decision Decision  `json:"decision"`
	At       time.Time `json:"at"`
}

// A Store keeps the approvals of project-defined servers, keyed by the
// project file that defines them and the server id, pinned to the
// definition's digest. It is backed by a JSON file (mode 0600, replaced
// atomically; another process's answers are merged on the next write) or,
// with an empty path, by memory only. Safe for concurrent use.
type Store struct {
	path string
	mu   sync.Mutex
	data fileData
}

// OpenStore loads the approvals file at path; a missing file is empty and
// an empty path keeps answers in memory for the life of the process.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, data: emptyData()}
	if path == "" {
		return s, nil
	}
	d, err := readFile(path)
	if err != nil {
		return nil, err
	}
	s.data = d
	return s, nil
}

// DefaultPath is approvals.json next to the global config file.
func DefaultPath(globalConfig string) string {
	return filepath.Join(filepath.Dir(globalConfig), "approvals.json")
}

// Path returns the file the store writes to, or "" for a memory store.
func (s *Store) Path() string { return s.path }

func emptyData() fileData {
	return fileData{Version: fileVersion, Projects: map[string]map[string]*fileEntry{}}
}

func readFile(path string) (fileData, error) {
	d := emptyData()
	// Bounded and depth-checked: the file is input like any other.
	err := statefile.Decode("approvals file", path, MaxFileBytes, &d)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyData(), nil
	}
	if err != nil {
		return emptyData(), err
	}
	if d.Version != fileVersion {
		return d, fmt.Errorf("approvals file %s: unsupported version %d (want %d)", path, d.Version, fileVersion)
	}
	if d.Projects == nil {
		d.Projects = map[string]map[string]*fileEntry{}
	}
	// An entry the host would not have written (no digest, a decision
	// other than approved or denied) is as if never answered: asked again.
	for project, servers := range d.Projects {
		for id, e := range servers {
			if e == nil || e.Digest == "" || e.Decision != Approved && e.Decision != Denied {
				delete(servers, id)
			}
		}
		if len(servers) == 0 {
			delete(d.Projects, project)
		}
	}
	return d, nil
}

// Lookup says what the user decided about server id, defined by the
// project file with the given digest. Another process's answers are read
// first, so a `host mcp approve` is seen by a running `host serve`.
func (s *Store) Lookup(project, id, digest string) Decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path != "" {
		if d, err := readFile(s.path); err == nil {
			s.data = d
		}
	}
	e := s.data.Projects[project][id]
	switch {
	case e == nil:
		return Unknown
	case e.Digest != digest:
		return Changed
	default:
		return e.Decision
	}
}

// Approve records that the user approved this definition.
func (s *Store) Approve(project, id, digest string) error {
	return s.record(project, id, digest, Approved)
}

// Deny records that the user refused this definition: it is not asked
// again until the definition changes or the user approves it explicitly.
func (s *Store) Deny(project, id, digest string) error {
	return s.record(project, id, digest, Denied)
}

func (s *Store) record(project, id, digest string, dec Decision) error {
	if project == "" || id == "" || digest == "" {
		return fmt.Errorf("approval: project, server id and digest are required")
	}
	return s.update(func(d *fileData) {
		m := d.Projects[project]
		if m == nil {
			m = map[string]*fileEntry{}
			d.Projects[project] = m
		}
		m[id] = &fileEntry{Digest: digest, Decision: dec, At: time.Now().UTC().Truncate(time.Second)}
	})
}

// update applies change to the file's current contents, writes it and
// adopts the result.
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
	if err := atomicfile.WriteJSON(s.path, &d, 0o600); err != nil {
		return fmt.Errorf("approvals file: %w", err) // it names the path
	}
	s.data = d
	return nil
}
