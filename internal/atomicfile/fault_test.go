package atomicfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseFault(t *testing.T) {
	for _, spec := range []string{
		"atomicfile:create:1", "atomicfile:write:3:kill", "atomicfile:sync:1:enospc",
		"atomicfile:rename:2:enospc:permissions.json", "atomicfile:syncdir:1:kill:C:\\x\\config.json",
		"atomicfile:trace",
	} {
		if f := parseFault(spec); f.err != nil {
			t.Errorf("%s: %v", spec, f.err)
		}
	}
	if f := parseFault("atomicfile:rename:2:enospc:a:b"); f.match != "a:b" {
		t.Errorf("match %q, want everything after the fourth colon", f.match)
	}
	for _, spec := range []string{
		"", "atomicfile", "config:write:1", "atomicfile:write", "atomicfile:flush:1", "atomicfile:write:0",
		"atomicfile:write:x", "atomicfile:write:1:explode", "atomicfile:syncdir:1:enospc",
	} {
		if f := parseFault(spec); f.err == nil || !strings.Contains(f.err.Error(), FaultEnv) {
			t.Errorf("%q: error %v, want one naming %s", spec, f.err, FaultEnv)
		}
	}
	if _, err := InjectFault("atomicfile:nope:1"); err == nil {
		t.Error("InjectFault took a malformed spec")
	}
}

// inject arms spec for the test.
func inject(t *testing.T, spec string) {
	t.Helper()
	restore, err := InjectFault(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(restore)
}

// A full disk at any step before the rename: the error names the file and
// says it was not saved, ENOSPC is in its chain, the old file is whole and
// no temporary file is left.
func TestENOSPCAtEveryStep(t *testing.T) {
	for _, step := range []Step{StepCreate, StepWrite, StepSync, StepRename} {
		for name, write := range map[string]func(string, []byte, os.FileMode) error{"WriteFile": WriteFile, "WriteCache": WriteCache} {
			t.Run(string(step)+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "state.json")
				if err := write(path, []byte("old contents"), 0o600); err != nil {
					t.Fatal(err)
				}
				inject(t, "atomicfile:"+string(step)+":1:enospc")
				err := write(path, []byte("new contents, longer than the old"), 0o600)
				if step == StepSync && name == "WriteCache" {
					if err != nil {
						t.Fatalf("WriteCache does not sync, yet failed: %v", err)
					}
					return
				}
				var ae *Error
				if !errors.As(err, &ae) || ae.Step != step || ae.Path != path || !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("error %#v, want an *Error of step %s for %s wrapping ENOSPC", err, step, path)
				}
				want := path + " not saved (" + string(step) + ": no space left on device); the file is as it was"
				if err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
				if b, _ := os.ReadFile(path); string(b) != "old contents" {
					t.Errorf("file holds %q after the failed write", b)
				}
				if names := entries(t, dir); len(names) != 1 {
					t.Errorf("directory holds %q, want only state.json", names)
				}
			})
		}
	}
}

// The n-th write and every later one meet the full disk; only files whose
// path holds the match do.
func TestENOSPCCountsAndMatches(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	inject(t, "atomicfile:write:2:enospc:a.json")
	for i, want := range []bool{true, false, false} {
		if err := WriteFile(a, []byte("x"), 0o600); (err == nil) != want {
			t.Errorf("write %d of a.json: %v", i+1, err)
		}
		if err := WriteFile(b, []byte("x"), 0o600); err != nil {
			t.Errorf("write %d of b.json: %v", i+1, err)
		}
	}
}

// Unarmed, a fault point costs no allocation.
func TestUnarmedPointIsFree(t *testing.T) {
	if current() != nil {
		t.Skipf("%s is set", FaultEnv)
	}
	if n := testing.AllocsPerRun(1000, func() { _ = at(StepWrite, "/x/config.json") }); n != 0 {
		t.Errorf("an unarmed fault point allocates %v times", n)
	}
}

// Temporary files that died writers left long ago go at the next write;
// a young one (a live writer's) and names that are not temporary files of
// the target stay.
func TestStaleTempsAreRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp-auth.json")
	old := time.Now().Add(-StaleTemp - time.Minute)
	files := map[string]bool{ // name -> kept
		".mcp-auth.json.123456.tmp": false, ".mcp-auth.json.99.tmp": true, ".mcp-auth.json.x1.tmp": true,
		".other.json.123.tmp": true, "mcp-auth.json.123.tmp": true,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != ".mcp-auth.json.99.tmp" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, kept := range files {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
	if !isTemp(".config.json.42.tmp", "config.json") || isTemp(".config.json..tmp", "config.json") || isTemp(".config.json.4a.tmp", "config.json") {
		t.Error("isTemp")
	}
}

// childEnv makes TestFaultChild write "new" over the file it names.
const childEnv = "ATOMICFILE_FAULT_CHILD"

// TestFaultChild is the process the kill tests start: it writes "new"
// over $ATOMICFILE_FAULT_CHILD with WriteFile and reports an error.
func TestFaultChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("run by the kill tests")
	}
	if err := WriteFile(path, []byte("new contents"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runChild runs TestFaultChild on path with FaultEnv set to spec.
func runChild(t *testing.T, path, spec string) (*os.ProcessState, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+path, FaultEnv+"="+spec)
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState, string(out)
}

// A process armed with kill dies at the step, and what it leaves is the
// old file or the new one, whole: new only once the rename is done.
func TestKillAtEveryStep(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the signal that ended the process is a Unix notion")
	}
	for _, step := range Steps {
		t.Run(string(step), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.json")
			if err := WriteFile(path, []byte("old contents"), 0o600); err != nil {
				t.Fatal(err)
			}
			st, out := runChild(t, path, "atomicfile:"+string(step)+":1")
			if ws, ok := st.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the writer was not killed at %s: %v\n%s", step, st, out)
			}
			want := map[bool]string{true: "new contents", false: "old contents"}[step == StepSyncDir]
			if b, _ := os.ReadFile(path); string(b) != want {
				t.Errorf("after a kill at %s the file holds %q, want %q", step, b, want)
			}
			temps := len(entries(t, dir)) - 1
			if wantTemps := map[bool]int{true: 1, false: 0}[step == StepWrite || step == StepSync || step == StepRename]; temps != wantTemps {
				t.Errorf("after a kill at %s: %d temporary files, want %d", step, temps, wantTemps)
			}
		})
	}
}

// A malformed $MCP_HOST_FAULT fails every write, naming the variable;
// trace reports every step and changes nothing.
func TestFaultEnvInAProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	st, out := runChild(t, path, "atomicfile:sideways:1")
	if st.Success() || !strings.Contains(out, FaultEnv+`="atomicfile:sideways:1": unknown step`) || !strings.Contains(out, "not saved (create:") {
		t.Errorf("a malformed fault: %v\n%s", st, out)
	}
	st, out = runChild(t, path, "atomicfile:trace")
	if !st.Success() {
		t.Fatalf("traced write: %v\n%s", st, out)
	}
	for _, step := range Steps {
		if !strings.Contains(out, "mcp-host fault point: atomicfile "+string(step)+" "+path+"\n") {
			t.Errorf("trace lacks %s:\n%s", step, out)
		}
	}
}
