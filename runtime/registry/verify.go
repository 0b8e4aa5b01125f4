package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-host/mcp-host/internal/statefile"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// ErrMismatch is matched by the error of [Verifier.Verify] when a config
// entry does not run what its recorded registry entry produces.
var ErrMismatch = errors.New("differs from what the registry entry produces")

// verifyTimeout bounds the fetch of one registry entry while verifying.
const verifyTimeout = 15 * time.Second

// Verifier re-derives, from the registry's server.json, the config entry
// that a recorded registry source (url, name@version, package) produces,
// and compares it with the entry as written: the "registry" field of a
// config entry is the user's to edit, so it is never trusted alone.
// Entries are kept in memory per process (a published version does not
// change); a registry that cannot be reached fails the check.
type Verifier struct {
	// HTTP sends the requests; nil means a client with DefaultTimeout.
	HTTP *http.Client
	// DataDir is where bundles are unpacked; "" means DefaultDataDir.
	DataDir string

	mu   sync.Mutex
	memo map[string]Entry
}

// Verify returns nil when c is exactly what its recorded registry entry
// produces with the values c was given: the same transport, command,
// arguments, environment, URL and headers. Otherwise the error says why:
// no registry recorded, the entry cannot be fetched, or (wrapping
// [ErrMismatch]) what the registry entry would run instead.
func (v *Verifier) Verify(id string, c config.ServerConfig) error {
	src := c.Registry
	if src == nil {
		return errors.New("it records no registry entry")
	}
	e, err := v.entry(src.URL, src.Name, src.Version)
	if err != nil {
		return fmt.Errorf("cannot fetch %s@%s from %s to verify it: %w", src.Name, src.Version, src.URL, err)
	}
	pl, err := Build(e, Options{Use: src.Package, Values: ValuesFrom(c), ID: id, LookPath: func(s string) (string, error) { return s, nil }})
	if err != nil {
		return fmt.Errorf("%s@%s from %s: %w", src.Name, src.Version, src.URL, err)
	}
	if len(pl.Missing) > 0 {
		return fmt.Errorf("its command line or URL %w (%s@%s from %s): that needs %s, which the entry does not give", ErrMismatch, src.Name, src.Version, src.URL, pl.Missing[0].Key)
	}
	if pl.Kind == "mcpb" {
		if err := v.useBundle(pl); err != nil {
			return err
		}
	}
	want, got := CommandLine(pl.Config), CommandLine(c)
	if want != got || pl.Config.TransportName() != c.TransportName() {
		return fmt.Errorf("its command line or URL %w (%s@%s from %s): it runs %q, the registry entry runs %q", ErrMismatch, src.Name, src.Version, src.URL, got, want)
	}
	return nil
}

// useBundle points an mcpb plan at its unpacked bundle, whose directory
// is named by the registry's fileSha256.
func (v *Verifier) useBundle(pl *Plan) error {
	dir := v.DataDir
	if dir == "" {
		d, err := DefaultDataDir()
		if err != nil {
			return err
		}
		dir = d
	}
	want := strings.ToLower(pl.Package.FileSHA256)
	if len(want) != 64 {
		return fmt.Errorf("bundle %s: no valid fileSha256", pl.Package.Identifier)
	}
	dir = filepath.Join(dir, "bundles", safeName(pl.Entry.Server.Name), safeName(pl.Entry.Server.Version)+"-"+want[:12])
	var m manifest
	if err := statefile.Decode("bundle manifest", filepath.Join(dir, "manifest.json"), 1<<20, &m); err != nil {
		return fmt.Errorf("%s@%s: its bundle is not installed: %w", pl.Entry.Server.Name, pl.Entry.Server.Version, err)
	}
	b, err := m.command(dir)
	if err != nil {
		return fmt.Errorf("bundle %s: %w", dir, err)
	}
	pl.UseBundle(b)
	return nil
}

// entry fetches name@version from the registry at u, once per process.
// The on-disk cache is not used: its files are the user's to write, and a
// forged entry would admit any command line.
func (v *Verifier) entry(u, name, version string) (Entry, error) {
	c := &Client{URL: u, HTTP: v.HTTP}
	key := c.base() + "\x00" + name + "\x00" + version
	v.mu.Lock()
	e, ok := v.memo[key]
	v.mu.Unlock()
	if ok {
		return e, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
	defer cancel()
	e, err := c.Get(ctx, name, version)
	if err != nil {
		return Entry{}, err
	}
	return v.keep(key, e), nil
}

func (v *Verifier) keep(key string, e Entry) Entry {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.memo == nil {
		v.memo = map[string]Entry{}
	}
	v.memo[key] = e
	return e
}

// defaultVerifier is the process's verifier, see [Verify].
var defaultVerifier struct {
	once sync.Once
	v    *Verifier
}

// Verify is [Verifier.Verify] with the process's verifier, which finds
// bundles in [DefaultDataDir].
func Verify(id string, c config.ServerConfig) error {
	defaultVerifier.once.Do(func() { defaultVerifier.v = &Verifier{} })
	return defaultVerifier.v.Verify(id, c)
}
