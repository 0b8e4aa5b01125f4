package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/internal/atomicfile"
)

// smallDisk is a tmpfs of its own mounted over a world's HOME in a mount
// namespace the test creates (unshare; a user namespace too when the test
// is not root), held open by a sleeping process; commands enter it with
// nsenter, and the test reaches its files through /proc/<pid>/root.
type smallDisk struct {
	holder *exec.Cmd
	enter  []string // nsenter and its flags, before the command
}

// mountSmallDisk mounts a tmpfs of size bytes over dir in a new mount
// namespace, or skips (fails under E2E_REQUIRED=1) when this machine
// cannot make one. The holder mounts it itself, after unshare made the
// namespace: the mount can never land in the test's own.
func mountSmallDisk(t *testing.T, dir string, size int) *smallDisk {
	t.Helper()
	for _, tool := range []string{"unshare", "nsenter", "mount"} {
		_, err := exec.LookPath(tool)
		testenv.Require(t, tool+" (util-linux) for a tmpfs in a mount namespace", err)
	}
	unshare := []string{"unshare", "--mount", "--propagation", "private"}
	enter := []string{"nsenter", "--mount"}
	if os.Geteuid() != 0 {
		unshare = append(unshare, "--map-root-user")
		enter = append(enter, "--user", "--preserve-credentials")
	}
	script := fmt.Sprintf(`mount -t tmpfs -o size=%d,mode=0700 tmpfs "$1" && echo mounted && exec sleep 600`, size)
	holder := exec.Command(unshare[0], append(unshare[1:], "sh", "-c", script, "sh", dir)...)
	var stderr lockedBuffer
	holder.Stderr = &stderr
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		testenv.Require(t, "unshare --mount", err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	line := make(chan string, 1)
	go func() {
		b := make([]byte, 64)
		n, _ := stdout.Read(b)
		line <- string(b[:n])
	}()
	select {
	case l := <-line:
		if strings.TrimSpace(l) != "mounted" {
			holder.Wait()
			testenv.Require(t, "a tmpfs mounted in a mount namespace of the test's own", fmt.Errorf("%s: %s", holder.ProcessState, stderr.String()))
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("unshare did not mount the tmpfs within 10 s: %s", stderr.String())
	}
	d := &smallDisk{holder: holder}
	d.enter = append(enter, "--target", strconv.Itoa(holder.Process.Pid), "--")
	ours, _ := os.Readlink("/proc/self/ns/mnt")
	if theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", holder.Process.Pid)); err != nil || theirs == ours || !d.mounted(dir) {
		t.Fatalf("the tmpfs is not in a mount namespace of its own (%s, ours %s, %v)", theirs, ours, err)
	}
	return d
}

// mounted reports whether dir is a tmpfs in the namespace.
func (d *smallDisk) mounted(dir string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/mounts", d.holder.Process.Pid))
	return err == nil && bytes.Contains(b, []byte(" "+dir+" tmpfs "))
}

// path is where the test reaches p of the namespace.
func (d *smallDisk) path(p string) string {
	return filepath.Join(fmt.Sprintf("/proc/%d/root", d.holder.Process.Pid), p)
}

// fill writes zeros to dir/fill until the disk is full.
func (d *smallDisk) fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(d.path(filepath.Join(dir, "fill")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zeros := make([]byte, 4096)
	for {
		if _, err := f.Write(zeros); err != nil {
			if !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}

// TestFullDiskTmpfs is issue 35 item 4 on a real full disk: HOME (the
// config, cache and data directories) on a 1 MiB tmpfs, filled up after
// a first server was added. `host mcp add` says what was not saved and
// leaves the config as it was; host serve starts, serves the server
// (whose catalog it cannot keep) and does not show an "always allow" it
// could not save as saved; nothing is left on the small disk but what
// was there.
func TestFullDiskTmpfs(t *testing.T) {
	w := newWorld(t)
	bin := buildHost(t)
	lazy := buildLazyStdio(t, t.TempDir())
	tools := t.TempDir()
	disk := mountSmallDisk(t, w.home, 1<<20)
	// Every host this test starts runs in the namespace.
	wrapper := filepath.Join(t.TempDir(), "host")
	script := "#!/bin/sh\nexec " + strings.Join(disk.enter, " ") + " " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("E2E_HOST_BIN", wrapper)
	if err := os.MkdirAll(disk.path(w.project), 0o700); err != nil {
		t.Fatal(err)
	}
	w.mustRun(t, "mcp", "add", "a", "http://127.0.0.1:9/a")
	writeJSONFile(t, disk.path(w.global()), map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"lz": lazyServer(t, lazy, tools, "lz", "t1 first"),
	}}})
	before := readOr(t, disk.path(w.global()))
	disk.fill(t, w.home)

	r := w.run(t, nil, "mcp", "add", "b", "http://127.0.0.1:9/b")
	if want := "add b: not added: config: " + notSaved(w.global(), atomicfile.StepWrite); r.code() != 1 || !strings.Contains(r.errOut, want) {
		t.Errorf("add on a full disk: exit %d, stderr %q; want 1 and %q", r.code(), r.errOut, want)
	}
	if after := readOr(t, disk.path(w.global())); !bytes.Equal(after, before) {
		t.Errorf("the full disk changed the config:\n%s", after)
	}

	h := mustServe(t, w, nil)
	alwaysNotSaved(t, h, filepath.Join(w.configDir(), "permissions.json"))
	stopped(t, h)
	if n := temps(t, disk.path(w.home)); n != 0 {
		t.Errorf("%d temporary files left on the full disk", n)
	}
	if b := readOr(t, disk.path(filepath.Join(w.configDir(), "permissions.json"))); b != nil {
		t.Errorf("a permissions file was written: %s", b)
	}
}
