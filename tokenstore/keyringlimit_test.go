package tokenstore

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/zalando/go-keyring"
)

// limitedKeyring is an in-memory keyring that refuses what go-keyring's
// backend for goos refuses (v0.2.8): on windows a value over 2560 bytes, on
// darwin a `security -i` command over 4096 bytes (the value base64-encoded
// on it). It is written apart from keyringItemLimit, so the two must agree.
type limitedKeyring struct {
	goos    string
	mu      sync.Mutex
	items   map[string]string
	biggest int // the largest accepted measure (value or command bytes)
}

func (f *limitedKeyring) Get(service, user string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.items[service+"\x00"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

// shq quotes like go-keyring's internal shellescape.Quote.
func shq(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)
	}
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func (f *limitedKeyring) Set(service, user, password string) error {
	measure := len(password)
	switch f.goos {
	case "windows":
		if measure > 2560 {
			return keyring.ErrSetDataTooBig
		}
	case "darwin":
		pw := "go-keyring-base64:" + base64.StdEncoding.EncodeToString([]byte(password))
		command := fmt.Sprintf("add-generic-password -U -s %s -a %s -w %s\n", shq(service), shq(user), shq(pw))
		if measure = len(command); measure > 4096 {
			return keyring.ErrSetDataTooBig
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items[service+"\x00"+user] = password
	f.biggest = max(f.biggest, measure)
	return nil
}

func (f *limitedKeyring) Delete(service, user string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.items[service+"\x00"+user]; !ok {
		return keyring.ErrNotFound
	}
	delete(f.items, service+"\x00"+user)
	return nil
}

// bigRecord is a token set as large as real ones get: a JWT access token
// with many claims, an ID-token-sized refresh token, dozens of scopes, and
// non-ASCII text that a split must not cut inside a character.
func bigRecord() *auth.Record {
	rec := record(1)
	rec.Token.AccessToken = "eyJ" + strings.Repeat("Qk9ESUVTLWp3dC1jbGFpbXM", 400) // 9 KB
	rec.Token.RefreshToken = strings.Repeat("rt-é-ü-", 700)                        // non-ASCII across part boundaries
	for i := range 60 {
		rec.Scopes = append(rec.Scopes, "https://graph.example.com/scope."+strconv.Itoa(i)+".ReadWrite")
	}
	return rec
}

// TestKeyringChunksUnderEachSystemsLimit stores a large token set through
// keyrings that refuse like macOS's and Windows' go-keyring backends: it
// round-trips, split into items each under that system's limit, and no
// more items than the limit needs.
func TestKeyringChunksUnderEachSystemsLimit(t *testing.T) {
	ctx := context.Background()
	rec := bigRecord()
	data, _ := encodeRecord(rec)
	for _, goos := range []string{"darwin", "windows", "linux"} {
		t.Run(goos, func(t *testing.T) {
			fake := &limitedKeyring{goos: goos, items: map[string]string{}}
			kb := &keyringBackend{api: fake, timeout: DefaultTimeout,
				limit: func(service, user string) int { return keyringItemLimit(goos, service, user) }}
			s := &Store{backend: kb, name: BackendKeyring}
			// A long server id makes a long account, which leaves less room
			// on the darwin command line.
			key := auth.Key{ServerID: "workspace-" + strings.Repeat("x", 300), URL: "https://mcp.example/mcp"}
			if err := s.Save(ctx, key, rec); err != nil {
				t.Fatalf("save %d bytes: %v", len(data), err)
			}
			got, err := s.Load(ctx, key)
			if err != nil || got == nil || got.Token.AccessToken != rec.Token.AccessToken ||
				got.Token.RefreshToken != rec.Token.RefreshToken || len(got.Scopes) != len(rec.Scopes) {
				t.Fatalf("round trip of %d bytes: %v", len(data), err)
			}
			head, _ := fake.Get(Service, Account(key))
			n, _ := strconv.Atoi(strings.TrimPrefix(head, chunkPrefix))
			limit := keyringItemLimit(goos, Service, Account(key)+"#64")
			want := (len(data) + limit - 1) / limit
			if n < want || n > want+1 { // +1: a part may end early on a UTF-8 boundary
				t.Errorf("%d bytes in %d items of at most %d; want %d", len(data), n, limit, want)
			}
			switch goos {
			case "darwin":
				if fake.biggest > 4096 || fake.biggest < 4000 {
					t.Errorf("largest security command %d bytes; want close under 4096", fake.biggest)
				}
			case "windows":
				if fake.biggest > 2560 || fake.biggest < 2500 {
					t.Errorf("largest credential blob %d bytes; want close under 2560", fake.biggest)
				}
			}
			if err := s.Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			if len(fake.items) != 0 {
				t.Errorf("%d items left after delete", len(fake.items))
			}
		})
	}
}

func TestSplitRecordKeepsCharactersWhole(t *testing.T) {
	s := strings.Repeat("aé", 10) // é is 2 bytes
	for max := 1; max <= 7; max++ {
		parts := splitRecord(s, max)
		if strings.Join(parts, "") != s {
			t.Fatalf("max %d: parts do not join back", max)
		}
		for _, p := range parts {
			if len(p) > max && max > 1 {
				t.Errorf("max %d: part %q too long", max, p)
			}
			if max > 1 && !utf8.ValidString(p) {
				t.Errorf("max %d: part %q cuts a character", max, p)
			}
		}
	}
}
