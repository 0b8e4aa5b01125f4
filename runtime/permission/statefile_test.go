package permission

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/internal/statefile"
)

// The permissions file is input: one over its bound, or nested deeper than
// statefile.MaxDepth, is an error naming the file, read no further.
func TestPermissionsFileIsBoundedOnRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.json")
	big := `{"version":2,"servers":{},"pad":"` + strings.Repeat("x", MaxFileBytes) + `"}`
	os.WriteFile(path, []byte(big), 0o600)
	if _, err := OpenStore(path); !errors.Is(err, statefile.ErrTooLarge) || !strings.Contains(err.Error(), "permissions file "+path) {
		t.Errorf("oversized: %v", err)
	}
	os.WriteFile(path, []byte(`{"version":2,"servers":{"a":{"tools":{"t":`+strings.Repeat("[", 3_000_000)), 0o600)
	if _, err := OpenStore(path); !errors.Is(err, statefile.ErrTooDeep) || !strings.Contains(err.Error(), "permissions file "+path) {
		t.Errorf("deep: %v", err)
	}
}

// FuzzReadFile: whatever the permissions file holds, reading it returns an
// error naming the file or data without nil servers.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte(`{"version":2,"servers":{"a":{"all_tools":true},"b":{"tools":{"t":"sha256:1"}}}}`))
	f.Add([]byte(`{"version":1,"servers":{"a":null}}`))
	f.Add([]byte(`{"version":2,"servers":` + strings.Repeat("{", 20000)))
	f.Add([]byte(`{"version":3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "permissions.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		d, err := readFile(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for id, e := range d.Servers {
			if e == nil {
				t.Fatalf("kept nil server %q", id)
			}
		}
	})
}
