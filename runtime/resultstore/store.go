// Package resultstore keeps whole, on disk, the tool results the adapter
// cuts at the output budget, for the model to read in parts with the host
// tool mcp_result_read (see [Scope.Tool]).
//
// A [Store] is one directory in the user's cache directory. Each result is
// one file of mode 0600, bounded on its own (MaxResultBytes) and with the
// others of the process (MaxTotalBytes). A [Scope] (one conversation, or
// one run) can read only the results it kept, and removes them when it is
// closed; closing the store removes every result it kept; results older
// than MaxAge (a day), left by a host that did not close or kept by a
// conversation that has gone on that long, are swept when a store opens
// and whenever it keeps a result.
//
// Age, when the clock jumps: a result this store kept is as old as the
// time since it kept it, by the clock Options.Now gives, which for
// time.Now is the monotonic clock: a clock set back or forward (or a
// suspend, which that clock does not count) neither sweeps a live result
// early nor keeps it longer. A file this store did not keep (a host that
// crashed, or another one running) has only its modification time, a
// wall-clock time: it is swept when that time is more than MaxAge before
// now, or more than MaxAge after it (the clock was set back since it was
// written, and its age cannot be told). So a clock set back keeps such a
// file at most twice MaxAge, and a jump forward of more than MaxAge
// sweeps another running host's results early (its reads then say the
// result is gone).
package resultstore

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/listcache"
)

// Defaults of [Options].
const (
	// DefaultMaxResultBytes bounds one kept result: the session's default
	// bound of one answer (32 MiB) with room for its text to grow when
	// rendered.
	DefaultMaxResultBytes = 64 << 20
	// DefaultMaxTotalBytes bounds all the results a process keeps.
	DefaultMaxTotalBytes = 256 << 20
	// DefaultMaxAge is how long a file left behind is kept.
	DefaultMaxAge = 24 * time.Hour
)

// filePrefix and fileSuffix frame the names of kept results.
const (
	filePrefix = "result-"
	fileSuffix = ".txt"
)

// Options configure a [Store].
type Options struct {
	// Dir is the directory; empty means [DefaultDir].
	Dir string
	// MaxResultBytes, MaxTotalBytes and MaxAge bound what is kept; zero
	// means the default.
	MaxResultBytes, MaxTotalBytes int64
	MaxAge                        time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// DefaultDir is "results" in the host's cache directory (see
// listcache.CacheDir).
func DefaultDir() (string, error) {
	d, err := listcache.CacheDir("results")
	if err != nil {
		return "", fmt.Errorf("result store: %w", err)
	}
	return d, nil
}

// A Store keeps results in one directory. Safe for concurrent use.
type Store struct {
	opts Options

	mu    sync.Mutex
	sizes map[string]int64     // id -> bytes, the results kept and not removed
	kept  map[string]time.Time // id -> when it was kept, by opts.Now
	total int64
}

// Open creates the directory (mode 0700) when needed, sweeps files older
// than MaxAge and returns the store.
func Open(opts Options) (*Store, error) {
	if opts.Dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		opts.Dir = d
	}
	if opts.MaxResultBytes <= 0 {
		opts.MaxResultBytes = DefaultMaxResultBytes
	}
	if opts.MaxTotalBytes <= 0 {
		opts.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("result store: %w", err)
	}
	s := &Store{opts: opts, sizes: map[string]int64{}, kept: map[string]time.Time{}}
	s.sweep()
	return s, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.opts.Dir }

// sweep removes the files of kept results older than MaxAge: by the time
// since this store kept them, or, for the others, by their modification
// time (see the package doc for a clock that jumps).
func (s *Store) sweep() {
	ents, err := os.ReadDir(s.opts.Dir)
	if err != nil {
		return
	}
	now, maxAge := s.opts.Now(), s.opts.MaxAge
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, filePrefix) || !strings.HasSuffix(name, fileSuffix) || !e.Type().IsRegular() {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(name, filePrefix), fileSuffix)
		s.mu.Lock()
		at, ours := s.kept[id]
		s.mu.Unlock()
		var old bool
		if ours {
			old = now.Sub(at) > maxAge
		} else if info, err := e.Info(); err == nil {
			d := now.Sub(info.ModTime())
			old = d > maxAge || d < -maxAge
		}
		if old {
			os.Remove(filepath.Join(s.opts.Dir, name))
			s.mu.Lock()
			s.forget(id)
			s.mu.Unlock()
		}
	}
}

// forget drops id from the accounts; s.mu is held.
func (s *Store) forget(id string) {
	if n, ok := s.sizes[id]; ok {
		s.total -= n
		delete(s.sizes, id)
	}
	delete(s.kept, id)
}

func (s *Store) path(id string) string { return filepath.Join(s.opts.Dir, filePrefix+id+fileSuffix) }

// errTooLarge is the error of a result over its bound.
var errTooLarge = errors.New("over the bound of kept results")

// keep writes one result and accounts for it.
func (s *Store) keep(write func(io.Writer) error) (adapter.Kept, error) {
	s.sweep()
	var raw [12]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return adapter.Kept{}, fmt.Errorf("result store: %w", err)
	}
	id := hex.EncodeToString(raw[:])
	s.mu.Lock()
	room := min(s.opts.MaxResultBytes, s.opts.MaxTotalBytes-s.total)
	s.mu.Unlock()
	if room <= 0 {
		return adapter.Kept{}, fmt.Errorf("result store: %w (%d bytes in all)", errTooLarge, s.opts.MaxTotalBytes)
	}
	p := s.path(id)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return adapter.Kept{}, fmt.Errorf("result store: %w", err)
	}
	cw := &countingWriter{max: room}
	bw := bufio.NewWriterSize(io.MultiWriter(f, cw), 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		if errors.Is(err, errTooLarge) {
			return adapter.Kept{}, fmt.Errorf("result store: the result is %w (%d bytes)", errTooLarge, room)
		}
		return adapter.Kept{}, fmt.Errorf("result store: %w", err)
	}
	s.mu.Lock()
	s.sizes[id] = cw.n
	s.kept[id] = s.opts.Now()
	s.total += cw.n
	s.mu.Unlock()
	lines := cw.lines
	if cw.n > 0 && cw.last != '\n' {
		lines++ // a last line without its newline
	}
	return adapter.Kept{ID: id, Bytes: cw.n, Lines: lines}, nil
}

// remove deletes one kept result.
func (s *Store) remove(id string) {
	os.Remove(s.path(id))
	s.mu.Lock()
	s.forget(id)
	s.mu.Unlock()
}

// Close removes every result the store kept and has not removed yet.
func (s *Store) Close() error {
	s.mu.Lock()
	ids := make([]string, 0, len(s.sizes))
	for id := range s.sizes {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.remove(id)
	}
	return nil
}

// countingWriter counts bytes and newlines and fails past max.
type countingWriter struct {
	n, max int64
	lines  int
	last   byte
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) > w.max {
		return 0, errTooLarge
	}
	w.n += int64(len(p))
	if len(p) > 0 {
		w.last = p[len(p)-1]
	}
	for _, b := range p {
		if b == '\n' {
			w.lines++
		}
	}
	return len(p), nil
}

// A Scope is the results of one conversation (or one run): it reads only
// those, whatever ids a model names, and Close removes them. Safe for
// concurrent use.
type Scope struct {
	s      *Store
	mu     sync.Mutex
	ids    map[string]bool
	closed bool
}

// Scope starts a scope.
func (s *Store) Scope() *Scope { return &Scope{s: s, ids: map[string]bool{}} }

var _ adapter.Keeper = (*Scope)(nil)

// Keep writes one result into the store for this scope.
func (sc *Scope) Keep(_, _ string, write func(io.Writer) error) (adapter.Kept, error) {
	sc.mu.Lock()
	closed := sc.closed
	sc.mu.Unlock()
	if closed {
		return adapter.Kept{}, errors.New("result store: the conversation has ended")
	}
	k, err := sc.s.keep(write)
	if err != nil {
		return k, err
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		sc.s.remove(k.ID)
		return adapter.Kept{}, errors.New("result store: the conversation has ended")
	}
	sc.ids[k.ID] = true
	return k, nil
}

// open opens a result of this scope for reading.
func (sc *Scope) open(id string) (*os.File, int64, error) {
	sc.mu.Lock()
	ok := sc.ids[id]
	sc.mu.Unlock()
	if !ok {
		return nil, 0, fmt.Errorf("no kept result %q in this conversation", id)
	}
	f, err := os.Open(sc.s.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, fmt.Errorf("kept result %q is gone: kept results are removed after a day", id)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("kept result %q: %w", id, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("kept result %q: %w", id, err)
	}
	return f, info.Size(), nil
}

// Close removes the scope's results.
func (sc *Scope) Close() {
	sc.mu.Lock()
	ids := sc.ids
	sc.ids, sc.closed = map[string]bool{}, true
	sc.mu.Unlock()
	for id := range ids {
		sc.s.remove(id)
	}
}
