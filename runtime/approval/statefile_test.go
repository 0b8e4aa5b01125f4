package approval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/internal/statefile"
)

// The approvals file is input: one over its bound is an error naming the
// file, read no further; entries the host would not have written are as if
// never answered.
func TestApprovalsFileIsValidatedOnRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.json")
	big := `{"version":1,"projects":{},"pad":"` + strings.Repeat("x", MaxFileBytes) + `"}`
	os.WriteFile(path, []byte(big), 0o600)
	if _, err := OpenStore(path); !errors.Is(err, statefile.ErrTooLarge) || !strings.Contains(err.Error(), "approvals file "+path) {
		t.Errorf("oversized: %v", err)
	}
	os.WriteFile(path, []byte(`{"version":1,"projects":{"/p":{
		"good":{"digest":"sha256:1","decision":"approved"},
		"nodigest":{"decision":"approved"},
		"odd":{"digest":"sha256:1","decision":"changed"},
		"nil":null}}}`), 0o600)
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]Decision{"good": Approved, "nodigest": Unknown, "odd": Unknown, "nil": Unknown} {
		if got := s.Lookup("/p", id, "sha256:1"); got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
}

// FuzzReadFile: whatever the approvals file holds, reading it returns; what
// it keeps is only entries the host could have written.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"projects":{"/p":{"a":{"digest":"d","decision":"approved"}}}}`))
	f.Add([]byte(`{"version":1,"projects":{"/p":{"a":{"decision":"bogus"},"b":null}}}`))
	f.Add([]byte(`{"version":1,"projects":` + strings.Repeat("[", 20000)))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "approvals.json")
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
		for _, servers := range d.Projects {
			for id, e := range servers {
				if e == nil || e.Digest == "" || e.Decision != Approved && e.Decision != Denied {
					t.Fatalf("kept entry %q: %+v", id, e)
				}
			}
		}
	})
}
