// Package runstats samples the process's own Go runtime figures (the
// goroutines, the heap, the collections) and its open descriptors into a
// file, one JSON line per sample: what a soak run reads of `host serve`
// from outside, where /proc shows memory and processes but not
// goroutines or the Go heap. `host serve` writes it when
// MCP_HOST_STATS_FILE names a file ([EnvFile]); nothing else does.
package runstats

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"time"
)

// EnvFile is the environment variable that names the file.
const EnvFile = "MCP_HOST_STATS_FILE"

// Sample is one line of the file.
type Sample struct {
	// At is the time of the sample, in Unix milliseconds.
	At int64 `json:"at_ms"`
	// Goroutines is runtime.NumGoroutine.
	Goroutines int `json:"goroutines"`
	// HeapInuse and HeapAlloc are the Go heap's (bytes), after the last
	// collection and now.
	HeapInuse uint64 `json:"heap_inuse"`
	HeapAlloc uint64 `json:"heap_alloc"`
	// Sys is the memory the Go runtime holds from the OS.
	Sys uint64 `json:"sys"`
	// NumGC counts the collections so far.
	NumGC uint32 `json:"num_gc"`
	// FDs counts the open descriptors (-1 where the OS does not say).
	FDs int `json:"fds"`
}

// Take samples the process now.
func Take() Sample {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Sample{At: time.Now().UnixMilli(), Goroutines: runtime.NumGoroutine(), HeapInuse: m.HeapInuse,
		HeapAlloc: m.HeapAlloc, Sys: m.Sys, NumGC: m.NumGC, FDs: openFDs()}
}

// openFDs counts /proc/self/fd (Linux) or /dev/fd (macOS, BSD): -1
// where neither lists them.
func openFDs() int {
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		if ents, err := os.ReadDir(dir); err == nil {
			return len(ents) - 1 // the listing's own descriptor
		}
	}
	return -1
}

// Write appends a sample to path every interval until ctx ends (and one
// at the start). The file is the caller's (a soak run's); a failed write
// stops the sampling and is returned.
func Write(ctx context.Context, path string, every time.Duration) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("runstats: %w", err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := enc.Encode(Take()); err != nil {
			return fmt.Errorf("runstats: %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
