package hostile

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var build struct {
	once sync.Once
	bin  string
	err  error
	out  []byte
}

// Command returns the argv that runs the stdio server (cmd/hostile-text),
// built once per test binary with the go command into a new directory
// under the system's temp dir. Append "-crash" for the variant that writes
// its payloads to stderr and exits before the handshake.
func Command(t testing.TB) []string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "hostile-text-")
		if err != nil {
			build.err = err
			return
		}
		build.bin = filepath.Join(dir, "hostile-text")
		if runtime.GOOS == "windows" {
			build.bin += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", build.bin, "github.com/mcp-host/mcp-host/e2e/internal/hostile/cmd/hostile-text")
		build.out, build.err = cmd.CombinedOutput()
	})
	if build.err != nil {
		t.Fatalf("hostile: go build cmd/hostile-text: %v\n%s", build.err, build.out)
	}
	return []string{build.bin}
}
