package registry

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzUnpack: whatever archive a registry serves, unpack writes nothing
// outside the bundle's directory, no link and no special file, and leaves
// either the whole bundle or nothing.
func FuzzUnpack(f *testing.F) {
	for _, names := range [][]string{{"manifest.json", "server/index.js"}, {"../evil"}, {"a/../../evil"}, {"/abs"}, {"dir/", "dir/x"}} {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for _, n := range names {
			w, _ := zw.Create(n)
			_, _ = w.Write([]byte("x"))
		}
		_ = zw.Close()
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		root := t.TempDir()
		dir := filepath.Join(root, "bundles", "b")
		err = unpack(zr, dir)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, werr error) error {
			if werr != nil || p == root || p == filepath.Join(root, "bundles") {
				return nil
			}
			if !strings.HasPrefix(p, dir+string(filepath.Separator)) && p != dir {
				t.Errorf("unpack wrote %s, outside %s", p, dir)
			}
			if d.Type()&(fs.ModeSymlink|fs.ModeDevice|fs.ModeNamedPipe) != 0 {
				t.Errorf("unpack made %s (%v)", p, d.Type())
			}
			return nil
		})
		if _, serr := os.Stat(dir); err != nil && serr == nil {
			t.Errorf("a failed unpack (%v) left %s", err, dir)
		}
	})
}
