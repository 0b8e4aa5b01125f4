package registry

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
)

// An install killed mid-unpack leaves its fresh directory beside the
// bundle's; the next unpack there removes it once it is older than
// atomicfile.StaleTemp, and leaves a young one (a live install's) alone.
func TestUnpackRemovesStaleUnpacks(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("manifest.json")
	_, _ = w.Write([]byte(`{}`))
	_ = zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	stale, young := filepath.Join(parent, ".unpack-111"), filepath.Join(parent, ".unpack-222")
	for _, d := range []string{stale, young} {
		if err := os.MkdirAll(filepath.Join(d, "server"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-atomicfile.StaleTemp - time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := unpack(zr, filepath.Join(parent, "1.0.0-abc")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale unpack directory is still there: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("the young unpack directory is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(parent, "1.0.0-abc", "manifest.json")); err != nil {
		t.Errorf("the bundle was not unpacked: %v", err)
	}
}
