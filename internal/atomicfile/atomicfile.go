// Package atomicfile replaces a file's contents atomically: readers see
// either the old file or the new one, never a part, and a crash leaves one of
// the two on disk. It is the one place in mcp-host that does this (the
// configuration file, the permissions, approvals and token files use it,
// and the tools list caches and the registry cache without the syncs).
//
// Each step of a write (create, write, sync, rename, syncdir: [Steps]) is a
// fault point: a test makes the writer SIGKILL itself there, or find the
// disk full, through $MCP_HOST_FAULT ([FaultEnv]) in a real process or
// [InjectFault] in its own.
//
// It imports only the standard library and must not import any other
// mcp-host package.
package atomicfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteFile writes data to a temporary file in path's directory, sets its
// mode to perm, syncs it to disk, renames it over path and syncs the
// directory, so that the new file survives a crash of the whole system.
// The directory must exist. On every error the temporary file is removed
// and path is left as it was; the error is an [*Error] naming path and the
// step that failed, wrapping that step's *os.PathError or *os.LinkError.
// A failed sync of the directory is not an error: the new file is in
// place for every reader by then, and only its durability across a power
// loss is in doubt, which the caller could not repair either.
//
// A write also removes the temporary files of path that writers which
// died mid-write (kill -9, a crash) left more than [StaleTemp] ago.
//
// On Unix the rename is rename(2), atomic within one file system. On Windows
// os.Rename is MoveFileEx with MOVEFILE_REPLACE_EXISTING, which replaces an
// existing file too; because another process briefly holding the old file
// open (an antivirus scanner, a search indexer, a reader in another mcp-host
// process) makes it fail with a sharing violation or access denied,
// WriteFile retries the rename for a short while on Windows before giving
// up. On Windows perm only controls the read-only attribute, and the
// directory is not synced (Windows has no way to).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteCache is WriteFile without syncing the new file or the directory
// to disk: for a cache, where readers see the old file or the new one as
// with WriteFile, but a crash of the whole system may leave an empty or
// partial file, which a cache's reader must treat as a miss. It saves the
// syncs, milliseconds on a laptop's disk (F_FULLFSYNC on macOS), in
// commands that return as soon as they have their answer.
func WriteCache(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

// Error is the error of a write that did not replace its file: the file
// at Path is as it was before the write, and no temporary file is left.
type Error struct {
	// Path is the file that was to be written.
	Path string
	// Step is the step that failed.
	Step Step
	// Err is the step's error: an *os.PathError naming the temporary
	// file, an *os.LinkError, or the like.
	Err error
}

// Error says which file was not saved, why, and that it is as it was:
// "/x/config.json not saved (write: no space left on device); the file is
// as it was".
func (e *Error) Error() string {
	cause := e.Err
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(cause, &pe):
		cause = pe.Err
	case errors.As(cause, &le):
		cause = le.Err
	}
	return fmt.Sprintf("%s not saved (%s: %v); the file is as it was", e.Path, e.Step, cause)
}

// Unwrap returns the step's error.
func (e *Error) Unwrap() error { return e.Err }

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	dir, base := filepath.Dir(path), filepath.Base(path)
	failed := func(step Step, err error) error { return &Error{Path: path, Step: step, Err: err} }
	pattern := "." + base + ".*" + tempSuffix
	if fire := at(StepCreate, path); fire != nil {
		return failed(StepCreate, fire(filepath.Join(dir, pattern)))
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return failed(StepCreate, err)
	}
	tmp := f.Name()
	fail := func(step Step, err error) error {
		f.Close()
		os.Remove(tmp)
		return failed(step, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(StepCreate, err)
	}
	if fire := at(StepWrite, path); fire != nil {
		_, _ = f.Write(data[:len(data)/2]) // a torn write, as a crash or a full disk leaves one
		return fail(StepWrite, fire(tmp))
	}
	if _, err := f.Write(data); err != nil {
		return fail(StepWrite, err)
	}
	if sync {
		if fire := at(StepSync, path); fire != nil {
			return fail(StepSync, fire(tmp))
		}
		if err := f.Sync(); err != nil {
			return fail(StepSync, err)
		}
	}
	if err := f.Close(); err != nil { // a delayed write error (NFS, a full disk)
		os.Remove(tmp)
		return failed(StepWrite, err)
	}
	if fire := at(StepRename, path); fire != nil {
		err := fire(tmp)
		os.Remove(tmp)
		return failed(StepRename, err)
	}
	if err := rename(tmp, path); err != nil {
		os.Remove(tmp)
		return failed(StepRename, err)
	}
	if sync {
		if fire := at(StepSyncDir, path); fire != nil {
			_ = fire(dir) // only kill is armed here
		}
		_ = syncDir(dir)
	}
	sweepTemps(dir, base, time.Now())
	return nil
}

// tempSuffix ends the name of every temporary file: "."+base+".<digits>"+tempSuffix.
const tempSuffix = ".tmp"

// StaleTemp is how old a temporary file of a write must be for a later
// write of the same file to remove it. Only a writer that died between
// creating and renaming it leaves one behind (the file may hold a secret:
// a token file's last version), and no live write takes this long.
const StaleTemp = 10 * time.Minute

// sweepTemps removes the temporary files of base in dir last modified
// more than StaleTemp before now.
func sweepTemps(dir, base string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !isTemp(name, base) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > StaleTemp {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}

// isTemp reports whether name is the name of a temporary file a write of
// a file named base creates.
func isTemp(name, base string) bool {
	prefix := "." + base + "."
	if len(name) <= len(prefix)+len(tempSuffix) || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, tempSuffix) {
		return false
	}
	for _, c := range name[len(prefix) : len(name)-len(tempSuffix)] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// WriteJSON writes v as indented JSON (with a final newline) to path with
// WriteFile, creating path's directory (mode 0700) first: the private state
// files of mcp-host (tokens, permissions, approvals) are written this way.
// Every error names path and says it was not saved, for the caller to
// wrap with what the file is.
func WriteJSON(path string, v any, perm os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s not saved: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("%s not saved: %w", path, err)
	}
	return WriteFile(path, append(b, '\n'), perm)
}
