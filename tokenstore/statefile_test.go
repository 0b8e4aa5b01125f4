package tokenstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/internal/statefile"
)

// The token file is input: one over its bound is an error naming the file,
// read no further.
func TestTokenFileIsBoundedOnRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	big := `{"version":1,"accounts":{},"pad":"` + strings.Repeat("x", MaxFileBytes) + `"}`
	os.WriteFile(path, []byte(big), 0o600)
	if _, err := (&fileBackend{path: path}).read(); !errors.Is(err, statefile.ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("oversized: %v", err)
	}
}

// FuzzFileRead: whatever the token file holds, reading it returns an error
// naming the file or a document with accounts.
func FuzzFileRead(f *testing.F) {
	f.Add([]byte(`{"version":1,"accounts":{"a":{"access_token":"x"}}}`))
	f.Add([]byte(`{"version":1,"accounts":{"a":` + strings.Repeat("[", 20000)))
	f.Add([]byte(`{"accounts":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "tokens.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		doc, err := (&fileBackend{path: path}).read()
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if doc.Accounts == nil {
			t.Fatal("nil accounts")
		}
		for _, raw := range doc.Accounts {
			_, _ = decodeRecord(raw)
		}
	})
}
