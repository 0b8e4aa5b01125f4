package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Step names one step of a write: each is a point where a test can make
// the writer die (SIGKILL) or find the disk full (ENOSPC).
type Step string

// The steps of a write, in the order a write reaches them.
const (
	// StepCreate creates the temporary file beside the target and sets
	// its mode.
	StepCreate Step = "create"
	// StepWrite writes the data to the temporary file. A fault here
	// strikes after half of the data is written: a torn write.
	StepWrite Step = "write"
	// StepSync syncs the temporary file to disk ([WriteFile] only).
	StepSync Step = "sync"
	// StepRename renames the temporary file over the target.
	StepRename Step = "rename"
	// StepSyncDir syncs the directory, making the rename durable
	// ([WriteFile] only). The new file is in place by then.
	StepSyncDir Step = "syncdir"
)

// Steps lists every step in the order a write reaches them.
var Steps = []Step{StepCreate, StepWrite, StepSync, StepRename, StepSyncDir}

// FaultEnv is the environment variable that arms a fault in a real
// process (a host binary a test drives), read once, at the first write:
//
//	atomicfile:<step>:<n>[:<action>[:<match>]]
//	atomicfile:trace
//
// <step> is one of [Steps]; <n> counts, from 1, the writes that reach
// that step of a file whose path contains <match> (every file when it is
// empty). The action kill (the default) makes the process SIGKILL itself
// at the n-th one; enospc makes that step fail with ENOSPC, the error of
// a full disk, from the n-th one on (a full disk stays full), and is not
// taken for syncdir, whose failure is no error of the write. trace prints
// "mcp-host fault point: atomicfile <step> <path>" on stderr at every
// step of every write and changes nothing: a harness runs a command with
// it once to count the kill points.
//
// Unset, it costs each step of a write two atomic loads and no
// allocation. A malformed value makes every write fail with an error
// naming the variable.
const FaultEnv = "MCP_HOST_FAULT"

// Fault actions.
const (
	actKill   = "kill"
	actENOSPC = "enospc"
	actTrace  = "trace"
)

// fault is an armed fault: a parsed FaultEnv value.
type fault struct {
	step   Step
	n      int
	action string
	match  string
	err    error // a malformed value: every write fails with it

	mu   sync.Mutex
	seen int // writes of a matching file that reached step
}

var (
	envOnce sync.Once
	armed   atomic.Pointer[fault]
)

// current returns the armed fault, reading FaultEnv at the first call.
func current() *fault {
	envOnce.Do(func() {
		if v, ok := os.LookupEnv(FaultEnv); ok && v != "" {
			armed.Store(parseFault(v))
		}
	})
	return armed.Load()
}

// InjectFault arms spec (the syntax of [FaultEnv]) in this process, in
// place of what FaultEnv armed, until the returned function restores it.
// It is for tests: a test in another package gives its writes a full disk
// with "atomicfile:write:1:enospc".
func InjectFault(spec string) (restore func(), err error) {
	f := parseFault(spec)
	if f.err != nil {
		return nil, f.err
	}
	prev := current()
	armed.Store(f)
	return func() { armed.Store(prev) }, nil
}

func parseFault(v string) *fault {
	bad := func(format string, a ...any) *fault {
		return &fault{err: fmt.Errorf("%s=%q: %s", FaultEnv, v, fmt.Sprintf(format, a...))}
	}
	parts := strings.SplitN(v, ":", 5)
	if parts[0] != "atomicfile" {
		return bad("want atomicfile:<step>:<n>[:kill|enospc[:<match>]] or atomicfile:trace")
	}
	if len(parts) == 2 && parts[1] == actTrace {
		return &fault{action: actTrace}
	}
	if len(parts) < 3 {
		return bad("want atomicfile:<step>:<n>[:kill|enospc[:<match>]]")
	}
	f := &fault{step: Step(parts[1]), action: actKill}
	known := false
	for _, s := range Steps {
		known = known || s == f.step
	}
	if !known {
		return bad("unknown step %q (want one of %v)", parts[1], Steps)
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 1 {
		return bad("the count %q is not a number from 1", parts[2])
	}
	f.n = n
	if len(parts) > 3 && parts[3] != "" {
		f.action = parts[3]
	}
	if f.action != actKill && f.action != actENOSPC {
		return bad("unknown action %q (want kill or enospc)", f.action)
	}
	if f.action == actENOSPC && f.step == StepSyncDir {
		return bad("enospc is not taken at syncdir: the file is in place by then, and a directory sync's failure is no error of the write")
	}
	if len(parts) > 4 {
		f.match = parts[4]
	}
	return f
}

// at returns the fault armed for step of a write of path: nil when there
// is none, else a function that performs it on name (the file the step
// works on): it kills the process, or returns the step's ENOSPC error.
func at(step Step, path string) func(name string) error {
	f := current()
	if f == nil {
		return nil
	}
	if f.err != nil {
		if step != StepCreate {
			return nil
		}
		return func(string) error { return f.err }
	}
	if f.action == actTrace {
		fmt.Fprintf(os.Stderr, "mcp-host fault point: atomicfile %s %s\n", step, path)
		return nil
	}
	if step != f.step || !strings.Contains(path, f.match) {
		return nil
	}
	f.mu.Lock()
	f.seen++
	seen := f.seen
	f.mu.Unlock()
	switch {
	case f.action == actKill && seen == f.n:
		return func(string) error { killSelf(); return nil }
	case f.action == actENOSPC && seen >= f.n:
		return func(name string) error { return &fs.PathError{Op: string(step), Path: name, Err: syscall.ENOSPC} }
	}
	return nil
}

// killSelf ends the process as kill -9 would: no deferred function, no
// exit handler runs.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	for {
		time.Sleep(time.Second) // the signal is on its way
	}
}
