package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/hostilehttp"
	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// hostileHost runs the host binary against one hostile HTTP server, in a
// private config, token store and home.
type hostileHost struct {
	bin, dir string
	env      []string
}

func newHostileHost(t *testing.T, url string) *hostileHost {
	return newHostileHostWith(t, map[string]any{"transport": "http", "url": url, "request_timeout_ms": 60000})
}

// newHostileHostWith configures server "hostile" as def says.
func newHostileHostWith(t *testing.T, def map[string]any) *hostileHost {
	t.Helper()
	bin := buildHost(t)
	tmp := t.TempDir()
	config := filepath.Join(tmp, "config.json")
	cfg, _ := json.Marshal(map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{"hostile": def}}})
	if err := os.WriteFile(config, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "project")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &hostileHost{bin: bin, dir: dir, env: []string{
		"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file",
		"HOME=" + tmp, "XDG_CONFIG_HOME=" + filepath.Join(tmp, "xdg-config"), "XDG_DATA_HOME=" + filepath.Join(tmp, "xdg-data"),
		"XDG_STATE_HOME=" + filepath.Join(tmp, "xdg-state"), "XDG_CACHE_HOME=" + filepath.Join(tmp, "xdg-cache"),
	}}
}

// call runs `host mcp call hostile <tool> --yes --json` and returns stdout,
// stderr, the exit code and the process's peak RSS in bytes (0 where the
// platform does not report it).
func (h *hostileHost) call(t *testing.T, tool string) (string, string, int, int64) {
	t.Helper()
	return h.run(t, nil, "mcp", "call", "hostile", tool, "--yes", "--json")
}

// run runs the host with args and env added to the private environment.
func (h *hostileHost) run(t *testing.T, env []string, args ...string) (string, string, int, int64) {
	t.Helper()
	tool := strings.Join(args, " ")
	rssFile := filepath.Join(t.TempDir(), "peakrss")
	cmd := exec.Command(peakRSSBin(t), append([]string{h.bin}, args...)...)
	cmd.Dir = h.dir
	cmd.Env = append(append(os.Environ(), h.env...), env...)
	cmd.Env = append(cmd.Env, "PEAKRSS_FILE="+rssFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("host %s hung\n%s", tool, stderr.String())
	}
	data, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatalf("host %s: no peak RSS from peakrss: %v\n%s", tool, err, stderr.String())
	}
	rss, _ := strconv.ParseInt(string(data), 10, 64)
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode(), rss
}

var (
	peakRSSOnce sync.Once
	peakRSSPath string
	peakRSSErr  error
)

// peakRSSBin builds e2e/internal/hostilehttp/cmd/peakrss once: the host
// runs under it, so its peak RSS is its own and not inherited from this
// (large, race-enabled) test process.
func peakRSSBin(t *testing.T) string {
	t.Helper()
	dir := filepath.Dir(buildHost(t)) // removed with the host binary
	peakRSSOnce.Do(func() {
		peakRSSPath = filepath.Join(dir, "peakrss")
		cmd := exec.Command("go", "build", "-o", peakRSSPath, "./e2e/internal/hostilehttp/cmd/peakrss")
		cmd.Dir = testenv.RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			peakRSSErr = &buildError{err: err, out: string(out)}
		}
	})
	if peakRSSErr != nil {
		t.Fatalf("building peakrss: %v", peakRSSErr)
	}
	return peakRSSPath
}

// Issue 12 item 3: memory does not follow the server. A 200 MB tools/call
// result, a ~300 KB gzip body inflating to 300 MB and a 40 MB SSE event
// each fail the call with an error naming the server and the cap, and the
// host process peaks under 100 MB (measured from the kernel's rusage).
func TestHostileHTTPAnswersStayUnder100MB(t *testing.T) {
	measuresMemory(t) // the race detector would multiply the RSS measured
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from Linux rusage")
	}
	srv := hostilehttp.Start(t)
	h := newHostileHost(t, srv.URL)
	if out, errOut, code, _ := h.call(t, hostilehttp.ToolEcho); code != 0 {
		t.Fatalf("echo: exit %d\n%s%s", code, out, errOut)
	}
	const limit = 100 << 20
	for _, tool := range []string{hostilehttp.ToolHugeResult, hostilehttp.ToolGzipBomb, hostilehttp.ToolHugeEvent} {
		t.Run(tool, func(t *testing.T) {
			start := time.Now()
			out, errOut, code, rss := h.call(t, tool)
			t.Logf("%s: exit %d in %s, peak RSS %.1f MB; stderr: %s", tool, code, time.Since(start).Round(time.Millisecond), float64(rss)/(1<<20), strings.TrimSpace(errOut))
			if code == 0 {
				t.Errorf("the call succeeded (%d bytes of output)", len(out))
			}
			for _, want := range []string{`"hostile"`, "32 MiB", "max_response_bytes"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q", want)
				}
			}
			if rss == 0 {
				t.Fatal("no peak RSS reported")
			}
			if rss > limit {
				t.Errorf("peak RSS %.1f MB, want under %d MB", float64(rss)/(1<<20), limit>>20)
			}
		})
	}
}

// Issue 11 items 3 and 4 through the binary: a legacy SSE server whose
// endpoint event names another origin gets no request there (so not the
// X-Api-Key expanded from ${VAR}), the command says why, and no expanded
// value (header or URL query) shows in any output.
func TestHostileSSEEndpointOnAnotherOrigin(t *testing.T) {
	srv := hostilehttp.StartCrossOrigin(t)
	h := newHostileHostWith(t, map[string]any{
		"transport": "sse", "url": srv.URL + "?k=${HOSTILE_QUERY}",
		"headers": map[string]any{"X-Api-Key": "${HOSTILE_KEY}"},
	})
	secrets := []string{"qv-5b1d9e77c2", "hk-0f3a8c6e41"}
	env := []string{"HOSTILE_QUERY=" + secrets[0], "HOSTILE_KEY=" + secrets[1]}
	for _, args := range [][]string{{"mcp", "test", "hostile"}, {"mcp", "get", "hostile"}, {"mcp", "call", "hostile", "echo", "--yes"}} {
		out, errOut, code, _ := h.run(t, env, args...)
		t.Logf("host %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		for _, s := range secrets {
			if strings.Contains(out+errOut, s) {
				t.Errorf("host %s shows the expanded value %q", strings.Join(args, " "), s)
			}
		}
		if args[1] != "get" && (code == 0 || !strings.Contains(out+errOut, "another origin")) {
			t.Errorf("host %s: exit %d, want a failure naming the other origin", strings.Join(args, " "), code)
		}
	}
	if n := srv.Elsewhere.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
}

// TestMaxResponseBytesFromConfig: a server's max_response_bytes is the cap
// its answers meet.
func TestMaxResponseBytesFromConfig(t *testing.T) {
	srv := hostilehttp.Start(t)
	h := newHostileHostWith(t, map[string]any{"transport": "http", "url": srv.URL, "max_response_bytes": 1 << 20})
	if out, errOut, code, _ := h.call(t, hostilehttp.ToolEcho); code != 0 {
		t.Fatalf("echo under a 1 MiB cap: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code, _ := h.call(t, hostilehttp.ToolHugeResult)
	if code == 0 || !strings.Contains(errOut, "1 MiB") || !strings.Contains(errOut, "max_response_bytes") {
		t.Errorf("huge result under a 1 MiB cap: exit %d, stderr %q", code, errOut)
	}
}
