//go:build windows

package atomicfile

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Windows error codes a rename over a file another process holds open
// reports; they clear once that process closes the file.
const (
	errAccessDenied     syscall.Errno = 5  // ERROR_ACCESS_DENIED
	errSharingViolation syscall.Errno = 32 // ERROR_SHARING_VIOLATION
)

// renameRetryFor bounds how long rename keeps retrying a transient failure.
const renameRetryFor = 2 * time.Second

// rename is os.Rename (MoveFileEx with MOVEFILE_REPLACE_EXISTING), retried
// with a short backoff while the target is held open by another process.
func rename(from, to string) error {
	deadline := time.Now().Add(renameRetryFor)
	delay := time.Millisecond
	for {
		err := os.Rename(from, to)
		if err == nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
		if delay < 100*time.Millisecond {
			delay *= 2
		}
	}
}

func transient(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	return errno == errAccessDenied || errno == errSharingViolation
}
