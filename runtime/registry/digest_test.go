package registry

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The digest of an archive is the digest of its unpacked tree, and any
// change to the tree (a file edited, added, made executable, a link) no
// longer verifies.
func TestBundleDigest(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range map[string]string{"manifest.json": "{}", "server/index.js": "console.log(1)", "server/lib/a.js": "x", "bin/run": "#!/bin/sh"} {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		if name == "bin/run" {
			h.SetMode(0o755)
		}
		w, _ := zw.CreateHeader(h)
		_, _ = w.Write([]byte(body))
	}
	_ = zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	want, err := zipDigest(zr)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "b")
	if err := unpack(zr, dir); err != nil {
		t.Fatal(err)
	}
	if err := VerifyBundle(dir, want); err != nil {
		t.Fatalf("the bundle as unpacked: %v", err)
	}
	for name, change := range map[string]func(){
		"an edited file":     func() { os.WriteFile(filepath.Join(dir, "server", "index.js"), []byte("evil()"), 0o600) },
		"an added file":      func() { os.WriteFile(filepath.Join(dir, "server", "extra.js"), []byte("x"), 0o600) },
		"an executable file": func() { os.Chmod(filepath.Join(dir, "server", "lib", "a.js"), 0o700) },
		"a link":             func() { os.Symlink("/etc/passwd", filepath.Join(dir, "server", "l")) },
	} {
		t.Run(name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "b")
			if err := unpack(zr, d); err != nil {
				t.Fatal(err)
			}
			old := dir
			dir = d
			change()
			dir = old
			if err := VerifyBundle(d, want); err == nil || !strings.Contains(err.Error(), d) {
				t.Errorf("%s verified: %v", name, err)
			}
		})
	}
}
