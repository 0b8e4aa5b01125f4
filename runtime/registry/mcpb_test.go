package registry

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type zfile struct {
	name, body string
	mode       os.FileMode
}

func makeZip(t *testing.T, files ...zfile) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate}
		if f.mode != 0 {
			h.SetMode(f.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(f.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func serveBytes(t *testing.T, data []byte) (string, string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(data) }))
	t.Cleanup(srv.Close)
	sum := sha256.Sum256(data)
	return srv.URL + "/b.mcpb", hex.EncodeToString(sum[:])
}

const nodeManifest = `{"manifest_version":"0.3","name":"b","version":"1.0.0","server":{"type":"node","entry_point":"server/index.js","mcp_config":{"command":"node","args":["${__dirname}/server/index.js"],"env":{"HOME_DIR":"${__dirname}"}}}}`

func TestInstallBundle(t *testing.T) {
	data := makeZip(t, zfile{name: "manifest.json", body: nodeManifest}, zfile{name: "server/index.js", body: "console.log(1)"})
	u, sum := serveBytes(t, data)
	dataDir := t.TempDir()
	p := Package{RegistryType: "mcpb", Identifier: u, FileSHA256: sum}
	b, err := InstallBundle(context.Background(), nil, p, "io.github.t/b", "1.0.0", dataDir, lookOnly("node"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.Dir, filepath.Join(dataDir, "bundles", "io.github.t_b", "1.0.0-")) {
		t.Fatalf("dir %s", b.Dir)
	}
	if b.Command != "node" || len(b.Args) != 1 || b.Args[0] != b.Dir+"/server/index.js" || b.Env["HOME_DIR"] != b.Dir {
		t.Fatalf("bundle %+v", b)
	}
	if got, err := os.ReadFile(filepath.Join(b.Dir, "server", "index.js")); err != nil || string(got) != "console.log(1)" {
		t.Fatalf("unpacked: %q %v", got, err)
	}
	pl := &Plan{Config: configWithArgs("--x")}
	pl.UseBundle(b)
	if CommandLine(pl.Config) != "HOME_DIR="+b.Dir+" node "+b.Dir+"/server/index.js --x" {
		t.Fatalf("plan %q", CommandLine(pl.Config))
	}

	// A bundle whose bytes are not the registry's hash is refused, and
	// nothing is unpacked.
	other := t.TempDir()
	p.FileSHA256 = strings.Repeat("0", 64)
	if _, err := InstallBundle(context.Background(), nil, p, "io.github.t/b", "1.0.0", other, lookOnly("node")); err == nil || !strings.Contains(err.Error(), "SHA-256 is "+sum) {
		t.Fatalf("tampered: %v", err)
	}
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Fatalf("tampered bundle left %v", ents)
	}
	// No node: says so, unpacks nothing.
	p.FileSHA256 = sum
	if _, err := InstallBundle(context.Background(), nil, p, "io.github.t/b", "1.0.0", other, lookOnly()); !errors.Is(err, ErrCannotRun) {
		t.Fatalf("no node: %v", err)
	}
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Fatalf("bundle without its runtime left %v", ents)
	}
}

func TestInstallBundleRefusesEscapes(t *testing.T) {
	for name, files := range map[string][]zfile{
		"dotdot":    {{name: "manifest.json", body: nodeManifest}, {name: "../evil.js", body: "x"}},
		"absolute":  {{name: "manifest.json", body: nodeManifest}, {name: "/tmp/evil.js", body: "x"}},
		"backslash": {{name: "manifest.json", body: nodeManifest}, {name: `..\evil.js`, body: "x"}},
		"symlink":   {{name: "manifest.json", body: nodeManifest}, {name: "link", body: "/etc/passwd", mode: os.ModeSymlink | 0o777}},
		"entry":     {{name: "manifest.json", body: `{"server":{"type":"node","entry_point":"../../x.js"}}`}},
		"userconf":  {{name: "manifest.json", body: `{"server":{"type":"node","mcp_config":{"command":"node","args":["${user_config.key}"]}}}`}},
	} {
		t.Run(name, func(t *testing.T) {
			u, sum := serveBytes(t, makeZip(t, files...))
			dataDir := t.TempDir()
			_, err := InstallBundle(context.Background(), nil, Package{Identifier: u, FileSHA256: sum}, "io.github.t/b", "1.0.0", dataDir, lookOnly("node"))
			if err == nil {
				t.Fatal("installed")
			}
			if _, serr := os.Stat(filepath.Join(filepath.Dir(dataDir), "evil.js")); serr == nil {
				t.Fatal("escaped")
			}
			matches, _ := filepath.Glob(filepath.Join(dataDir, "bundles", "*", "*"))
			if len(matches) != 0 {
				t.Fatalf("left %v after %v", matches, err)
			}
		})
	}
}

func TestUnpackCaps(t *testing.T) {
	data := makeZip(t, zfile{name: "big", body: strings.Repeat("a", 100)})
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeEntry(zr.File[0], filepath.Join(t.TempDir(), "big"), 10); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("cap: %v", err)
	}
}
