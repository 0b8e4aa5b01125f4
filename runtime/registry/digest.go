package registry

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A bundle's digest is the SHA-256 of one line per entry, in the lexical
// order of the paths: "d PATH" for a directory, "f PATH EXEC SHA256" for
// a file (EXEC: whether it is executable). The same code unpacked gives the
// same digest, whether computed from the archive ([zipDigest], at install)
// or from the directory ([TreeDigest], before each start).

// TreeDigest is the digest of the unpacked bundle in dir. A link or a
// special file is an error: unpack makes neither, so one found later was
// put there by someone else.
func TreeDigest(dir string) (string, error) {
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir():
			lines = append(lines, "d "+rel)
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a plain file or directory", rel)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sum, err := sha(f)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("f %s %v %s", rel, info.Mode()&0o111 != 0, sum))
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("bundle %s: %w", dir, err)
	}
	return digestOf(lines), nil
}

// zipDigest is the digest the archive gives once unpacked: its files, and
// its directories, listed or implied by a file's path.
func zipDigest(zr *zip.Reader) (string, error) {
	dirs := map[string]bool{}
	var lines []string
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, "/")
		for d := path.Dir(name); d != "." && d != "/"; d = path.Dir(d) {
			dirs[d] = true
		}
		if f.Mode().IsDir() {
			dirs[name] = true
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return "", fmt.Errorf("entry %q: %w", f.Name, err)
		}
		sum, err := sha(io.LimitReader(rc, MaxUnpackedBytes+1))
		rc.Close()
		if err != nil {
			return "", fmt.Errorf("entry %q: %w", f.Name, err)
		}
		lines = append(lines, fmt.Sprintf("f %s %v %s", name, f.Mode()&0o111 != 0, sum))
	}
	for d := range dirs {
		lines = append(lines, "d "+d)
	}
	return digestOf(lines), nil
}

func sha(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// digestOf hashes the entries' lines sorted by path.
func digestOf(lines []string) string {
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[2:], b[2:]) })
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// VerifyBundle checks that the bundle in dir is still the one installed
// (sum, its digest at install): a server started from a changed bundle
// would run code nobody checked.
func VerifyBundle(dir, sum string) error {
	got, err := TreeDigest(dir)
	if err != nil {
		return err
	}
	if got != sum {
		return fmt.Errorf("bundle %s changed since it was installed (digest %.12s…, installed %.12s…): reinstall it (host mcp update, or add --from-registry --replace)", dir, got, sum)
	}
	return nil
}
