//go:build unix

package process_test

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/process"
	"golang.org/x/sys/unix"
)

// sessionReport is what the "session" child says: whether it leads a
// session of its own, and which descriptors above stderr it holds.
func sessionReport() string {
	sid, _ := unix.Getsid(0)
	var fds []string
	ents, _ := os.ReadDir("/dev/fd")
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			// The directory read itself holds one: skip what is a directory.
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
				fds = append(fds, e.Name())
			}
		}
	}
	sort.Strings(fds)
	return fmt.Sprintf("own-session=%v fds=%s", sid == os.Getpid(), strings.Join(fds, ","))
}

// A server leads a session of its own (no controlling terminal, so no
// /dev/tty, no TIOCSTI, no foreground), and a descriptor the host
// inherited without close-on-exec does not reach it.
func TestStartOwnSessionNoInheritedDescriptors(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "inherited")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// As a UI would leave it: open across exec.
	leak, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(leak)
	o := childOptions(t)
	o.Env[childEnv] = "session"
	p, err := process.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(nil)
	b, _ := io.ReadAll(p.Stdout())
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not exit")
	}
	got := strings.TrimSpace(string(b))
	if !strings.Contains(got, "own-session=true") {
		t.Errorf("the server shares the host's session: %s", got)
	}
	if strings.Contains(","+strings.TrimPrefix(got[strings.Index(got, "fds="):], "fds=")+",", ","+strconv.Itoa(leak)+",") {
		t.Errorf("the server holds the host's inherited descriptor %d: %s", leak, got)
	}
}
