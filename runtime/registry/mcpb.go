package registry

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/internal/statefile"
	"github.com/mcp-host/mcp-host/redact"
)

// Caps of [InstallBundle].
const (
	// MaxBundleBytes caps the download of a bundle.
	MaxBundleBytes = 128 << 20
	// MaxUnpackedBytes caps the bundle's files once unpacked.
	MaxUnpackedBytes = 512 << 20
	// MaxBundleFiles caps how many entries a bundle may have.
	MaxBundleFiles = 20000
)

// Bundle is an unpacked MCPB bundle and how to start its server.
type Bundle struct {
	Dir string `json:"dir"`
	// SHA256 is the unpacked tree's digest ([TreeDigest]).
	SHA256  string            `json:"sha256,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// manifest is the part of an MCPB manifest.json this package reads.
type manifest struct {
	Name   string `json:"name"`
	Server struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
}

// DefaultDataDir is where bundles are unpacked: $MCP_HOST_DATA_DIR, else
// mcp-host in the user's data directory ($XDG_DATA_HOME or ~/.local/share
// on Linux, ~/Library/Application Support on macOS, %LocalAppData% on
// Windows).
func DefaultDataDir() (string, error) {
	if d := os.Getenv("MCP_HOST_DATA_DIR"); d != "" {
		return d, nil
	}
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "mcp-host"), nil
		}
	case "darwin":
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, "Library", "Application Support", "mcp-host"), nil
		}
	default:
		if d := os.Getenv("XDG_DATA_HOME"); d != "" {
			return filepath.Join(d, "mcp-host"), nil
		}
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, ".local", "share", "mcp-host"), nil
		}
	}
	return "", fmt.Errorf("no user data directory: set MCP_HOST_DATA_DIR")
}

// InstallBundle downloads the bundle p names (through hc, nil meaning a
// client with DefaultTimeout), refuses it unless its SHA-256 is
// p.FileSHA256, checks the program its manifest runs is on PATH (look,
// nil meaning exec.LookPath), and unpacks it under
// dataDir/bundles/<name>/<version>-<hash>: no entry may leave that
// directory or be a link, and the caps bound the download, the unpacked
// size and the number of files. Nothing is unpacked unless all of that
// holds.
func InstallBundle(ctx context.Context, hc *http.Client, p Package, serverName, version, dataDir string, look func(string) (string, error)) (*Bundle, error) {
	if look == nil {
		look = exec.LookPath
	}
	want := strings.ToLower(p.FileSHA256)
	if len(want) != 64 {
		return nil, fmt.Errorf("bundle %s: no valid fileSha256 to verify it with", redact.URL(p.Identifier))
	}
	data, err := download(ctx, hc, p.Identifier)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, fmt.Errorf("bundle %s: SHA-256 is %s, the registry says %s: refusing it", redact.URL(p.Identifier), got, want)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("bundle %s: not a zip archive: %w", redact.URL(p.Identifier), err)
	}
	m, err := readManifest(zr)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", redact.URL(p.Identifier), err)
	}
	dir := filepath.Join(dataDir, "bundles", safeName(serverName), safeName(version)+"-"+want[:12])
	b, err := m.command(dir)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", redact.URL(p.Identifier), err)
	}
	if !strings.HasPrefix(b.Command, dir) {
		if _, err := look(b.Command); err != nil {
			return nil, fmt.Errorf("bundle %s runs %s, which is not on PATH: %w", redact.URL(p.Identifier), b.Command, ErrCannotRun)
		}
	}
	if b.SHA256, err = zipDigest(zr); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", redact.URL(p.Identifier), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		if VerifyBundle(dir, b.SHA256) == nil {
			return b, nil // this very bundle is unpacked already, unchanged
		}
		// Changed since: unpacked again from the verified archive.
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("bundle %s: removing the changed copy: %w", redact.URL(p.Identifier), err)
		}
	}
	if err := unpack(zr, dir); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", redact.URL(p.Identifier), err)
	}
	return b, nil
}

func download(ctx context.Context, hc *http.Client, u string) ([]byte, error) {
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", redact.URL(u), err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", redact.URL(u), redact.Error(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("bundle %s: %s", redact.URL(u), resp.Status)
	}
	data, err := readCapped(resp.Body, MaxBundleBytes)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", redact.URL(u), err)
	}
	return data, nil
}

func readManifest(zr *zip.Reader) (*manifest, error) {
	for _, f := range zr.File {
		if f.Name != "manifest.json" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("manifest.json: %w", err)
		}
		defer rc.Close()
		data, err := readCapped(rc, 1<<20)
		if err != nil {
			return nil, fmt.Errorf("manifest.json: %w", err)
		}
		var m manifest
		if err := statefile.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("manifest.json: %w", err)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("no manifest.json")
}

// command is how the manifest starts its server once unpacked into dir:
// its mcp_config with ${__dirname} replaced, else the entry point run by
// node or python3 (or itself for a binary).
func (m *manifest) command(dir string) (*Bundle, error) {
	b := &Bundle{Dir: dir}
	sub := func(s string) (string, error) {
		if strings.Contains(s, "${user_config.") {
			return "", fmt.Errorf("manifest asks for user_config values (%q), which this host does not support yet", s)
		}
		return strings.ReplaceAll(s, "${__dirname}", dir), nil
	}
	mc := m.Server.MCPConfig
	if mc.Command != "" {
		var err error
		if b.Command, err = sub(mc.Command); err != nil {
			return nil, err
		}
		for _, a := range mc.Args {
			v, err := sub(a)
			if err != nil {
				return nil, err
			}
			b.Args = append(b.Args, v)
		}
		for k, v := range mc.Env {
			if b.Env == nil {
				b.Env = map[string]string{}
			}
			if b.Env[k], err = sub(v); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	ep := m.Server.EntryPoint
	if ep == "" || !localPath(ep) {
		return nil, fmt.Errorf("manifest has neither mcp_config.command nor a valid server.entry_point")
	}
	full := filepath.Join(dir, filepath.FromSlash(ep))
	switch m.Server.Type {
	case "node":
		b.Command, b.Args = "node", []string{full}
	case "python":
		b.Command, b.Args = "python3", []string{full}
	case "binary":
		b.Command = full
	default:
		return nil, fmt.Errorf("manifest server.type %q is not supported", m.Server.Type)
	}
	return b, nil
}

// localPath reports whether a zip entry's name stays inside the directory
// it is unpacked into.
func localPath(name string) bool {
	if name == "" || strings.Contains(name, `\`) || strings.Contains(name, ":") || path.IsAbs(name) {
		return false
	}
	return filepath.IsLocal(filepath.FromSlash(name))
}

// unpack writes the archive into a fresh directory next to dir and renames
// it into place, so a failure leaves nothing half unpacked. The fresh
// directories that installs killed mid-unpack left there more than
// atomicfile.StaleTemp ago go first.
func unpack(zr *zip.Reader, dir string) error {
	if len(zr.File) > MaxBundleFiles {
		return fmt.Errorf("%d entries, more than %d", len(zr.File), MaxBundleFiles)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("unpack: %w", err)
	}
	sweepUnpacks(filepath.Dir(dir), time.Now())
	tmp, err := os.MkdirTemp(filepath.Dir(dir), unpackPrefix+"*")
	if err != nil {
		return fmt.Errorf("unpack: %w", err)
	}
	defer os.RemoveAll(tmp)
	var total int64
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, "/")
		if !localPath(name) {
			return fmt.Errorf("entry %q would be written outside the bundle's directory", f.Name)
		}
		mode := f.Mode()
		if mode&os.ModeSymlink != 0 || !(mode.IsDir() || mode.IsRegular()) {
			return fmt.Errorf("entry %q is not a plain file or directory", f.Name)
		}
		target := filepath.Join(tmp, filepath.FromSlash(name))
		if mode.IsDir() {
			if err := os.MkdirAll(target, 0o700); err != nil {
				return fmt.Errorf("unpack: %w", err)
			}
			continue
		}
		n, err := writeEntry(f, target, MaxUnpackedBytes-total)
		if err != nil {
			return err
		}
		total += n
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("unpack: %w", err)
	}
	return nil
}

// unpackPrefix starts the name of a directory an archive is unpacked into
// before its rename.
const unpackPrefix = ".unpack-"

// sweepUnpacks removes the unpack directories in parent last changed more
// than atomicfile.StaleTemp before now: only an install that died
// mid-unpack leaves one, and no live unpack takes that long.
func sweepUnpacks(parent string, now time.Time) {
	des, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, de := range des {
		if !de.IsDir() || !strings.HasPrefix(de.Name(), unpackPrefix) {
			continue
		}
		if info, err := de.Info(); err == nil && now.Sub(info.ModTime()) > atomicfile.StaleTemp {
			_ = os.RemoveAll(filepath.Join(parent, de.Name()))
		}
	}
}

// writeEntry copies one file of the archive to target, at most room bytes.
func writeEntry(f *zip.File, target string, room int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return 0, fmt.Errorf("unpack: %w", err)
	}
	perm := os.FileMode(0o600)
	if f.Mode()&0o111 != 0 {
		perm = 0o700
	}
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("entry %q: %w", f.Name, err)
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, fmt.Errorf("unpack: %w", err)
	}
	n, err := io.Copy(out, io.LimitReader(rc, room+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("entry %q: %w", f.Name, err)
	}
	if n > room {
		return n, fmt.Errorf("unpacked bundle larger than %d bytes", int64(MaxUnpackedBytes))
	}
	return n, nil
}

// safeName makes a directory name of a server name or version.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	out := strings.Trim(string(b), ".")
	if out == "" {
		out = "_"
	}
	return out
}
