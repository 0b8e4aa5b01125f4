// Package atomicfile replaces a file's contents atomically: readers see
// either the old file or the new one, never a part, and a crash leaves one of
// the two on disk. It is the one place in mcp-host that does this (the
// configuration file, the permissions file and the token file use it, and
// the tools list cache without the sync).
//
// It imports only the standard library and must not import any other
// mcp-host package.
package atomicfile

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// WriteFile writes data to a temporary file in path's directory, sets its
// mode to perm, syncs it to disk, and renames it over path. The directory
// must exist. On every error the temporary file is removed and path is left
// as it was; the error is the *os.PathError or *os.LinkError of the step
// that failed (it names the temporary file, which is in path's directory and
// starts with "."+base(path)), for the caller to wrap with its context.
//
// On Unix the rename is rename(2), atomic within one file system. On Windows
// os.Rename is MoveFileEx with MOVEFILE_REPLACE_EXISTING, which replaces an
// existing file too; because another process briefly holding the old file
// open (an antivirus scanner, a search indexer, a reader in another mcp-host
// process) makes it fail with a sharing violation or access denied,
// WriteFile retries the rename for a short while on Windows before giving
// up. On Windows perm only controls the read-only attribute.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteCache is WriteFile without syncing the new file to disk first: for
// a cache, where readers see the old file or the new one as with WriteFile,
// but a crash of the whole system may leave an empty or partial file, which
// a cache's reader must treat as a miss. It saves the sync, milliseconds
// on a laptop's disk (F_FULLFSYNC on macOS), in commands that return as
// soon as they have their answer.
func WriteCache(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// WriteJSON writes v as indented JSON (with a final newline) to path with
// WriteFile, creating path's directory (mode 0700) first: the private state
// files of mcp-host (tokens, permissions, approvals) are written this way.
// Errors are returned as they come, for the caller to wrap.
func WriteJSON(path string, v any, perm os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'), perm)
}
