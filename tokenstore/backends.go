package tokenstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/internal/statefile"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/zalando/go-keyring"
)

func encodeRecord(rec *auth.Record) ([]byte, error) { return json.Marshal(rec) }

func decodeRecord(data []byte) (*auth.Record, error) {
	var rec auth.Record
	if err := statefile.Unmarshal(data, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// MaxFileBytes bounds the token file the file backend reads.
const MaxFileBytes = 4 << 20

// fileBackend keeps every account in one JSON file, rewritten atomically
// (temp file, fsync, rename) under a lock file, so that processes sharing it
// never lose each other's writes.
type fileBackend struct {
	path string
}

// fileDoc is the file's content.
type fileDoc struct {
	Version  int                        `json:"version"`
	Accounts map[string]json.RawMessage `json:"accounts"`
}

func (f *fileBackend) read() (*fileDoc, error) {
	// Bounded and depth-checked: the file is input like any other.
	data, err := statefile.Read(f.path, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &fileDoc{Version: 1, Accounts: map[string]json.RawMessage{}}, nil
	}
	if errors.Is(err, statefile.ErrTooLarge) {
		return nil, fmt.Errorf("token file %s: %w", f.path, err)
	}
	if err != nil {
		return nil, err
	}
	var doc fileDoc
	if err := statefile.Unmarshal(data, &doc); err != nil {
		// Never overwritten: the user may want what is in it.
		return nil, fmt.Errorf("%s is not a valid token file (%v); fix or remove it", f.path, err)
	}
	if doc.Accounts == nil {
		doc.Accounts = map[string]json.RawMessage{}
	}
	return &doc, nil
}

func (f *fileBackend) write(doc *fileDoc) error {
	if err := atomicfile.WriteJSON(f.path, doc, 0o600); err != nil {
		return fmt.Errorf("token file: %w", err) // it names the path
	}
	return nil
}

// locked runs fn holding the file's lock.
func (f *fileBackend) locked(ctx context.Context, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return err
	}
	unlock, err := flock(ctx, f.path+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

func (f *fileBackend) get(ctx context.Context, account string) ([]byte, error) {
	var out []byte
	err := f.locked(ctx, func() error {
		doc, err := f.read()
		if err != nil {
			return err
		}
		out = doc.Accounts[account]
		return nil
	})
	return out, err
}

func (f *fileBackend) set(ctx context.Context, account string, data []byte) error {
	return f.locked(ctx, func() error {
		doc, err := f.read()
		if err != nil {
			return err
		}
		doc.Accounts[account] = data
		return f.write(doc)
	})
}

func (f *fileBackend) del(ctx context.Context, account string) error {
	return f.locked(ctx, func() error {
		doc, err := f.read()
		if err != nil {
			return err
		}
		if _, ok := doc.Accounts[account]; !ok {
			return nil
		}
		delete(doc.Accounts, account)
		return f.write(doc)
	})
}

// keyringAPI is the part of go-keyring used here; tests replace it to
// produce faults a real keyring cannot (a hang).
type keyringAPI interface {
	Get(service, user string) (string, error)
	Set(service, user, password string) error
	Delete(service, user string) error
}

type osKeyring struct{}

func (osKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (osKeyring) Set(service, user, v string) error        { return keyring.Set(service, user, v) }
func (osKeyring) Delete(service, user string) error        { return keyring.Delete(service, user) }

var kr keyringAPI = osKeyring{}

// keyringBackend keeps each account in the OS keyring. A record larger
// than one item may hold (see keyringItemLimit) is split over numbered
// items "<account>#1".."#n", at most maxKeyringParts, and the account's own
// item says "chunks:n".
type keyringBackend struct {
	api     keyringAPI
	timeout time.Duration
	// limit returns the most bytes one item of user may hold; nil means
	// the running system's (systemItemLimit). Tests set another system's.
	limit func(service, user string) int
}

// maxKeyringParts bounds the items of one record.
const maxKeyringParts = 64

// itemLimit returns the most bytes one item of user may hold.
func (k *keyringBackend) itemLimit(user string) int {
	if k.limit != nil {
		return k.limit(Service, user)
	}
	return systemItemLimit(Service, user)
}

// splitRecord cuts s into parts of at most max bytes, each ending on a
// UTF-8 boundary so that every part is a valid string where s is.
func splitRecord(s string, max int) []string {
	var parts []string
	for len(s) > 0 {
		n := min(max, len(s))
		for n < len(s) && n > 1 && !utf8.RuneStart(s[n]) {
			n--
		}
		parts = append(parts, s[:n])
		s = s[n:]
	}
	return parts
}

// call runs fn with the backend's timeout: a hung D-Bus never hangs us.
func (k *keyringBackend) call(ctx context.Context, what string, fn func() error) error {
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("keyring %s: no answer within %s: %w", what, k.timeout, ctx.Err())
	}
}

func (k *keyringBackend) getItem(ctx context.Context, user string) (string, bool, error) {
	var v string
	err := k.call(ctx, "get", func() error {
		var err error
		v, err = k.api.Get(Service, user)
		return err
	})
	if errors.Is(err, keyring.ErrNotFound) {
		return "", false, nil
	}
	return v, err == nil, err
}

const chunkPrefix = "chunks:"

func (k *keyringBackend) get(ctx context.Context, account string) ([]byte, error) {
	v, ok, err := k.getItem(ctx, account)
	if err != nil || !ok {
		return nil, err
	}
	if !strings.HasPrefix(v, chunkPrefix) {
		return []byte(v), nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(v, chunkPrefix))
	if err != nil || n < 1 || n > maxKeyringParts {
		return nil, fmt.Errorf("keyring item %q is damaged", account)
	}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		part, ok, err := k.getItem(ctx, account+"#"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("keyring item %q lacks part %d of %d", account, i, n)
		}
		b.WriteString(part)
	}
	return []byte(b.String()), nil
}

func (k *keyringBackend) set(ctx context.Context, account string, data []byte) error {
	old, _, err := k.getItem(ctx, account)
	if err != nil {
		return err
	}
	s := string(data)
	var parts []string
	if len(s) > k.itemLimit(account) {
		// The longest part name bounds every part.
		max := k.itemLimit(account + "#" + strconv.Itoa(maxKeyringParts))
		if max < 1 {
			return fmt.Errorf("keyring account %q is too long for a keyring item", account)
		}
		parts = splitRecord(s, max)
		if len(parts) > maxKeyringParts {
			return fmt.Errorf("record of %d bytes is too large for the keyring (%d items of %d bytes)", len(data), maxKeyringParts, max)
		}
		for i, p := range parts {
			user := account + "#" + strconv.Itoa(i+1)
			if err := k.call(ctx, "set", func() error { return k.api.Set(Service, user, p) }); err != nil {
				return err
			}
		}
		s = chunkPrefix + strconv.Itoa(len(parts))
	}
	if err := k.call(ctx, "set", func() error { return k.api.Set(Service, account, s) }); err != nil {
		return err
	}
	// Drop parts a longer earlier record left behind.
	if strings.HasPrefix(old, chunkPrefix) {
		n, _ := strconv.Atoi(strings.TrimPrefix(old, chunkPrefix))
		for i := len(parts) + 1; i <= n && i <= maxKeyringParts; i++ {
			user := account + "#" + strconv.Itoa(i)
			_ = k.call(ctx, "delete", func() error { return ignoreNotFound(k.api.Delete(Service, user)) })
		}
	}
	return nil
}

func ignoreNotFound(err error) error {
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

func (k *keyringBackend) del(ctx context.Context, account string) error {
	old, ok, err := k.getItem(ctx, account)
	if err != nil || !ok {
		return err
	}
	if strings.HasPrefix(old, chunkPrefix) {
		n, _ := strconv.Atoi(strings.TrimPrefix(old, chunkPrefix))
		for i := 1; i <= n && i <= maxKeyringParts; i++ {
			user := account + "#" + strconv.Itoa(i)
			if err := k.call(ctx, "delete", func() error { return ignoreNotFound(k.api.Delete(Service, user)) }); err != nil {
				return err
			}
		}
	}
	return k.call(ctx, "delete", func() error { return ignoreNotFound(k.api.Delete(Service, account)) })
}

// probe checks that the keyring works: a set, get and delete round trip of
// a throwaway item.
func (k *keyringBackend) probe() error {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	user := "probe|" + hex.EncodeToString(b)
	ctx := context.Background()
	if err := k.call(ctx, "set", func() error { return k.api.Set(Service, user, "probe") }); err != nil {
		return err
	}
	v, _, err := k.getItem(ctx, user)
	_ = k.call(ctx, "delete", func() error { return k.api.Delete(Service, user) })
	if err != nil {
		return err
	}
	if v != "probe" {
		return errors.New("keyring returned another value than it was given")
	}
	return nil
}
