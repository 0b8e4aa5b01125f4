// Package tokenstore persists OAuth credentials (tokens, client
// registrations, granted scopes) for the runtime's auth handlers. It
// implements auth.Store and auth.Locker over three backends: the OS keyring
// (macOS Keychain, Windows Credential Manager, Secret Service), a file
// (mcp-auth.json, mode 0600, replaced atomically under a lock), and auto:
// the keyring when a probe round trip succeeds, else the file, with a
// warning that says so.
//
// Records are keyed by account "<server-id>|<first 16 hex of sha256(url)>",
// so a server whose URL changes never reuses tokens issued for the old one.
// Every keyring call is bounded by a timeout, because a D-Bus peer can hang.
//
// It must not import runtime or runtime/serve: the command wiring hands it
// to the runtime's auth handlers as their store.
package tokenstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-host/mcp-host/runtime/auth"
)

// Backend names.
const (
	BackendAuto    = "auto"
	BackendKeyring = "keyring"
	BackendFile    = "file"
)

// Defaults.
const (
	// DefaultTimeout bounds every keyring call.
	DefaultTimeout = 5 * time.Second
	// FileName is the file backend's file in Options.Dir.
	FileName = "mcp-auth.json"
	// Service is the keyring service name.
	Service = "mcp-host"
)

// Options configure [Open].
type Options struct {
	// Backend is auto (default), keyring or file.
	Backend string
	// Dir holds mcp-auth.json and the lock files (the config directory).
	// Required.
	Dir string
	// Timeout bounds each keyring call; zero means DefaultTimeout.
	Timeout time.Duration
	// Logger receives warnings (never a secret); nil discards them.
	Logger *slog.Logger
}

// Store is an auth.Store and auth.Locker over the chosen backend.
type Store struct {
	backend backend
	dir     string
	name    string
	warning string
}

var (
	_ auth.Store  = (*Store)(nil)
	_ auth.Locker = (*Store)(nil)
)

// backend keeps one JSON record per account.
type backend interface {
	get(ctx context.Context, account string) ([]byte, error) // nil, nil when absent
	set(ctx context.Context, account string, data []byte) error
	del(ctx context.Context, account string) error
}

// Open returns a store. With auto it probes the keyring and falls back to
// the file; [Store.Warning] then says why.
func Open(o Options) (*Store, error) {
	if o.Dir == "" {
		return nil, errors.New("tokenstore: Dir is required")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Store{dir: o.Dir}
	file := &fileBackend{path: filepath.Join(o.Dir, FileName)}
	switch o.Backend {
	case BackendFile:
		s.backend, s.name = file, BackendFile
	case BackendKeyring:
		s.backend, s.name = &keyringBackend{api: kr, timeout: o.Timeout}, BackendKeyring
	case "", BackendAuto:
		kr := &keyringBackend{api: kr, timeout: o.Timeout}
		if err := kr.probe(); err != nil {
			s.backend, s.name = file, BackendFile
			s.warning = fmt.Sprintf("keyring unavailable (%v): tokens are kept in %s", err, file.path)
			o.Logger.Warn("tokenstore: " + s.warning)
		} else {
			s.backend, s.name = kr, BackendKeyring
		}
	default:
		return nil, fmt.Errorf("tokenstore: unknown backend %q (want auto, keyring or file)", o.Backend)
	}
	return s, nil
}

// Backend returns the backend in use: keyring or file.
func (s *Store) Backend() string { return s.name }

// Warning says why auto fell back to the file, or "".
func (s *Store) Warning() string { return s.warning }

// Describe names the storage for status output: "keyring", or "file
// <path>", with the fallback warning when there is one.
func (s *Store) Describe() string {
	d := s.name
	if fb, ok := s.backend.(*fileBackend); ok {
		d = "file " + fb.path
	}
	if s.warning != "" {
		d += " (keyring unavailable)"
	}
	return d
}

// Account returns the keyring account (and file key) of key.
func Account(key auth.Key) string {
	sum := sha256.Sum256([]byte(key.URL))
	return key.ServerID + "|" + hex.EncodeToString(sum[:])[:16]
}

// Load returns the record of key, or (nil, nil) when there is none.
func (s *Store) Load(ctx context.Context, key auth.Key) (*auth.Record, error) {
	data, err := s.backend.get(ctx, Account(key))
	if err != nil {
		return nil, fmt.Errorf("tokenstore %s: server %s: load: %w", s.name, key.ServerID, err)
	}
	if data == nil {
		return nil, nil
	}
	rec, err := decodeRecord(data)
	if err != nil {
		return nil, fmt.Errorf("tokenstore %s: server %s: stored record is unreadable: %w", s.name, key.ServerID, err)
	}
	return rec, nil
}

// Save replaces the record of key.
func (s *Store) Save(ctx context.Context, key auth.Key, rec *auth.Record) error {
	data, err := encodeRecord(rec)
	if err != nil {
		return fmt.Errorf("tokenstore: server %s: encode: %w", key.ServerID, err)
	}
	if err := s.backend.set(ctx, Account(key), data); err != nil {
		return fmt.Errorf("tokenstore %s: server %s: save: %w", s.name, key.ServerID, err)
	}
	return nil
}

// Delete removes the record of key; a missing record is not an error.
func (s *Store) Delete(ctx context.Context, key auth.Key) error {
	if err := s.backend.del(ctx, Account(key)); err != nil {
		return fmt.Errorf("tokenstore %s: server %s: delete: %w", s.name, key.ServerID, err)
	}
	return nil
}

// Lock takes the cross-process lock of key (a file lock in Dir/locks),
// waiting until it is free or ctx ends. The auth handler holds it while it
// refreshes, so two processes never spend the same refresh token.
func (s *Store) Lock(ctx context.Context, key auth.Key) (func(), error) {
	dir := filepath.Join(s.dir, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("tokenstore: lock: %w", err)
	}
	sum := sha256.Sum256([]byte(Account(key)))
	return flock(ctx, filepath.Join(dir, hex.EncodeToString(sum[:8])+".lock"))
}

// flock takes an exclusive lock on path, polling so that ctx can end the
// wait.
func flock(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("tokenstore: lock %s: %w", path, err)
	}
	for {
		locked, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("tokenstore: lock %s: %w", path, err)
		}
		if locked {
			return func() {
				_ = unlock(f)
				f.Close()
			}, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("tokenstore: waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}
