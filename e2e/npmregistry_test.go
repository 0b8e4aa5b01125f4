package e2e_test

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// npmRegistry is an npm registry on a loopback address that serves
// the packages installed in e2e/node (every version in its node_modules
// trees): a packument per name, a tarball per version made from the
// installed files. Tests talk to loopback only, so the README's npx
// commands install from here, through the user's own npm pointed at it
// with npm_config_registry.
type npmRegistry struct {
	URL string
	// Tarballs counts the tarballs served.
	Tarballs atomic.Int64

	mu       sync.Mutex
	packages map[string]map[string]string // name → version → dir
	latest   map[string]string            // name → the top-level version
}

// newNPMRegistry serves e2e/node's packages until the test ends.
func newNPMRegistry(t *testing.T) *npmRegistry {
	t.Helper()
	root := filepath.Join(testenv.RepoRoot(t), "e2e", "node", "node_modules")
	r := &npmRegistry{packages: map[string]map[string]string{}, latest: map[string]string{}}
	r.scan(root, true)
	if len(r.packages) == 0 {
		testenv.Require(t, "the npm packages in e2e/node (scripts/deps.sh installs them)", fs.ErrNotExist)
	}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/"
	return r
}

// scan records the packages in a node_modules directory and in theirs.
func (r *npmRegistry) scan(dir string, top bool) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if strings.HasPrefix(e.Name(), "@") {
			scoped, _ := os.ReadDir(filepath.Join(dir, e.Name()))
			for _, s := range scoped {
				if s.IsDir() {
					r.add(filepath.Join(dir, e.Name(), s.Name()), top)
				}
			}
			continue
		}
		r.add(filepath.Join(dir, e.Name()), top)
	}
}

func (r *npmRegistry) add(dir string, top bool) {
	var m struct{ Name, Version string }
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err != nil || json.Unmarshal(b, &m) != nil || m.Name == "" {
		return
	}
	if r.packages[m.Name] == nil {
		r.packages[m.Name] = map[string]string{}
	}
	r.packages[m.Name][m.Version] = dir
	if top || r.latest[m.Name] == "" {
		r.latest[m.Name] = m.Version
	}
	r.scan(filepath.Join(dir, "node_modules"), false)
}

// serve answers GET /<name> (a packument) and GET /-/<name>/<version>.tgz.
func (r *npmRegistry) serve(w http.ResponseWriter, req *http.Request) {
	path, err := url.PathUnescape(strings.TrimPrefix(req.URL.EscapedPath(), "/"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if rest, ok := strings.CutPrefix(path, "-/"); ok {
		name, file, _ := strings.Cut(rest, "/-/")
		r.mu.Lock()
		dir := r.packages[name][strings.TrimSuffix(file, ".tgz")]
		r.mu.Unlock()
		if dir == "" {
			http.NotFound(w, req)
			return
		}
		r.Tarballs.Add(1)
		w.Header().Set("Content-Type", "application/octet-stream")
		_ = writeTarball(w, dir)
		return
	}
	r.mu.Lock()
	versions, latest := r.packages[path], r.latest[path]
	r.mu.Unlock()
	if versions == nil {
		http.NotFound(w, req)
		return
	}
	doc := map[string]any{"name": path, "dist-tags": map[string]string{"latest": latest}}
	all := map[string]any{}
	for v, dir := range versions {
		var m map[string]any
		b, _ := os.ReadFile(filepath.Join(dir, "package.json"))
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		delete(m, "scripts")
		m["dist"] = map[string]string{"tarball": r.URL + "-/" + url.PathEscape(path) + "/-/" + v + ".tgz"}
		all[v] = m
	}
	doc["versions"] = all
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(doc)
}

// writeTarball writes a package's installed files (not its node_modules,
// no links) as npm's tarball: package/<path>, gzipped.
func writeTarball(w io.Writer, dir string) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + filepath.ToSlash(rel), Mode: int64(info.Mode().Perm()), Size: info.Size(), ModTime: info.ModTime(), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}
