package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"
)

// Scopes of a [Remembered] answer.
const (
	// ScopeTool is "always allow this tool", pinned to its definition.
	ScopeTool = "tool"
	// ScopeServer is "always allow this server": every tool of it.
	ScopeServer = "server"
)

// Remembered is one remembered "always allow" answer, as [Store.List] and
// [Store.Revoke] report it. Server and Tool come from the file: escape
// them before display.
type Remembered struct {
	// Server is the server id.
	Server string
	// Identity is the fingerprint of the definition the answer is bound to
	// (see [IdentityKey]); "" for an answer kept by id alone.
	Identity string
	// Tool is the original tool name; "" for ScopeServer.
	Tool string
	// Scope is ScopeTool or ScopeServer.
	Scope string
	// At is when the user answered; zero for answers remembered before
	// the time was kept.
	At time.Time
}

// List returns the remembered answers of server, or of every server when
// server is "", sorted by server, identity and tool. It reads the file
// again, so answers another process gave or took back are included.
func (s *Store) List(server string) ([]Remembered, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	var out []Remembered
	for key, e := range s.data.Servers {
		id, ident, _ := strings.Cut(key, "|")
		if server != "" && id != server {
			continue
		}
		if e.AllTools {
			out = append(out, Remembered{Server: id, Identity: ident, Scope: ScopeServer, At: e.AllToolsAt})
		}
		for tool := range e.Tools {
			out = append(out, Remembered{Server: id, Identity: ident, Tool: tool, Scope: ScopeTool, At: e.ToolsAt[tool]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		if a.Identity != b.Identity {
			return a.Identity < b.Identity
		}
		return a.Tool < b.Tool
	})
	return out, nil
}

// ErrNoAnswer is what [Store.Revoke] wraps when nothing it was asked to
// forget is remembered.
var ErrNoAnswer = errors.New("no remembered answer")

// Revoke forgets remembered answers, under every identity the server id
// had: the answer about one tool of server (tool not ""), every answer
// about server (tool ""), or every answer (server and tool ""). It returns
// what it forgot; nothing to forget is an error wrapping [ErrNoAnswer]
// that names the server and tool. The next call of a forgotten tool asks
// again, in this process and (see [Store.Lookup]) in others.
func (s *Store) Revoke(server, tool string) ([]Remembered, error) {
	if server == "" && tool != "" {
		return nil, fmt.Errorf("revoke tool %q: name its server", tool)
	}
	before, err := s.List(server)
	if err != nil {
		return nil, err
	}
	var gone []Remembered
	for _, a := range before {
		if tool == "" || (a.Scope == ScopeTool && a.Tool == tool) {
			gone = append(gone, a)
		}
	}
	if len(gone) == 0 {
		return nil, noAnswer(before, server, tool)
	}
	err = s.update(func(d *fileData) {
		for key, e := range d.Servers {
			id, _, _ := strings.Cut(key, "|")
			switch {
			case server != "" && id != server:
			case tool == "":
				delete(d.Servers, key)
			default:
				delete(e.Tools, tool)
				delete(e.ToolsAt, tool)
				if !e.AllTools && len(e.Tools) == 0 {
					delete(d.Servers, key)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}

// noAnswer says why nothing matched a revoke: answers has the server's
// answers (or every answer).
func noAnswer(answers []Remembered, server, tool string) error {
	switch {
	case server == "":
		return fmt.Errorf("%w: there is nothing to revoke", ErrNoAnswer)
	case tool == "":
		return fmt.Errorf("%w for server %q", ErrNoAnswer, server)
	}
	for _, a := range answers {
		if a.Scope == ScopeServer {
			return fmt.Errorf("%w for tool %q of server %q: the server's every tool is always allowed; revoke the server's answer instead", ErrNoAnswer, tool, server)
		}
	}
	return fmt.Errorf("%w for tool %q of server %q", ErrNoAnswer, tool, server)
}

// stat returns the file's info, or nil when it cannot be read.
func stat(path string) fs.FileInfo {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return fi
}

// fresh reports that the file is as it was when the store last read or
// wrote it (a memory store always is). The caller holds s.mu.
func (s *Store) fresh() bool {
	if s.path == "" {
		return true
	}
	now := stat(s.path)
	if now == nil || s.seen == nil {
		return now == nil && s.seen == nil
	}
	return os.SameFile(now, s.seen) && now.Size() == s.seen.Size() && now.ModTime().Equal(s.seen.ModTime())
}

// refresh reads the file again when it changed. The caller holds s.mu.
func (s *Store) refresh() error {
	if s.fresh() {
		return nil
	}
	seen := stat(s.path)
	d, err := readFile(s.path)
	if err != nil {
		return err
	}
	s.data, s.seen = d, seen
	return nil
}

// reload is refresh for a lookup: false when the file cannot be read.
func (s *Store) reload() bool { return s.refresh() == nil }

// Store returns the store that keeps the gate's "always" answers.
func (g *Gate) Store() *Store { return g.opts.Store }
