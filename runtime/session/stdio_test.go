package session_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server when this variable is set.
const stdioServerEnv = "SESSION_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) == "1" {
		runStdioServer()
		return
	}
	if runHostileMode() {
		return
	}
	os.Exit(m.Run())
}

func runStdioServer() {
	fmt.Fprintln(os.Stderr, "stdio test server starting")
	if b := os.Getenv("STDOUT_BANNER"); b != "" {
		// As @agent-infra/mcp-server-commands and time-mcp do.
		fmt.Println(b)
	}
	if f := os.Getenv("GRANDCHILD_PID_FILE"); f != "" {
		gc := exec.Command("sleep", "300")
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "grandchild:", err)
			os.Exit(1)
		}
		_ = os.WriteFile(f, []byte(strconv.Itoa(gc.Process.Pid)), 0o600)
	}
	stubborn := os.Getenv("STUBBORN") == "1"
	if stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "getenv"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Name string `json:"name"`
	}) (*mcp.CallToolResult, any, error) {
		wd, _ := os.Getwd()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: os.Getenv(in.Name) + "|" + wd}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "big"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Bytes int `json:"bytes"`
	}) (*mcp.CallToolResult, any, error) {
		line := strings.Repeat("x", 99) + "\n"
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat(line, in.Bytes/100)}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "crashing on purpose")
		os.Exit(3)
		return nil, nil, nil
	})
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
	if stubborn {
		select {} // ignore stdin closing too
	}
}

func stdioOptions(t testing.TB, env map[string]string) session.Options {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if env == nil {
		env = map[string]string{}
	}
	if env[stdioServerEnv] == "" {
		env[stdioServerEnv] = "1"
	}
	return session.Options{ID: "local", Transport: session.TransportStdio, Command: exe, Env: env, ShutdownGrace: 500 * time.Millisecond}
}

func TestStdioEnvDirAndStderr(t *testing.T) {
	dir := t.TempDir()
	o := stdioOptions(t, map[string]string{"GREETING": "hello"})
	o.Dir = dir
	s := connect(t, o)
	res, err := s.CallTool(context.Background(), "getenv", map[string]any{"name": "GREETING"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := textOf(t, res), "hello|"+dir; got != want {
		t.Errorf("getenv = %q, want %q", got, want)
	}
	if !strings.Contains(s.Stderr(), "stdio test server starting") {
		t.Errorf("stderr tail = %q", s.Stderr())
	}
	if s.Info().PID == 0 {
		t.Error("no pid recorded")
	}
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

func TestStdioCloseKillsWholeGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to inspect processes")
	}
	for _, stubborn := range []bool{false, true} {
		t.Run(fmt.Sprintf("stubborn=%v", stubborn), func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "gc.pid")
			env := map[string]string{"GRANDCHILD_PID_FILE": pidFile}
			if stubborn {
				env["STUBBORN"] = "1"
			}
			s, err := session.Connect(context.Background(), stdioOptions(t, env))
			if err != nil {
				t.Fatal(err)
			}
			leader := s.Info().PID
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			grandchild, _ := strconv.Atoi(string(b))
			if !alive(grandchild) || !alive(leader) {
				t.Fatal("server processes not running before Close")
			}
			done := make(chan struct{})
			go func() { s.Close(); close(done) }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("Close did not return")
			}
			waitFor(t, "every process of the group to be gone", 5*time.Second, func() bool {
				return !alive(leader) && !alive(grandchild)
			})
		})
	}
}

func TestStdioCrashIsReportedWithStderr(t *testing.T) {
	s := connect(t, stdioOptions(t, nil))
	_, err := s.CallTool(context.Background(), "crash", nil)
	if err == nil {
		t.Fatal("call to a crashing server succeeded")
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("session not marked lost after the process died")
	}
	lost := s.Err()
	if lost == nil || !strings.Contains(lost.Error(), "crashing on purpose") || !strings.Contains(lost.Error(), `server "local"`) ||
		!strings.Contains(lost.Error(), `"env_vars"`) {
		t.Errorf("Err() = %v, want the stderr tail, the server id and the env_vars hint", lost)
	}
	if _, err := s.CallTool(context.Background(), "getenv", nil); err == nil {
		t.Error("call on a lost session succeeded")
	}
}

// A call the server's process dies in says so: that it exited, how, and
// its stderr tail, not the pipe's EOF (`calling "tools/call": EOF`).
func TestStdioExitDuringCallIsReported(t *testing.T) {
	s := connect(t, stdioOptions(t, nil))
	_, err := s.CallTool(context.Background(), "crash", nil)
	var exited *session.ExitedError
	if !errors.As(err, &exited) || exited.Status != "exit status 3" || exited.Server != "local" {
		t.Fatalf("call the server died in: %v, want a session.ExitedError with exit status 3", err)
	}
	msg := err.Error()
	for _, want := range []string{`server "local" exited during the call of tool "crash" (exit status 3)`, "stderr: stdio test server starting | crashing on purpose", `"env_vars"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q: %s", want, msg)
		}
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("the error lost what the transport said (EOF): %v", err)
	}
}

func TestStdioBannerOnStdoutIsSkipped(t *testing.T) {
	s := connect(t, stdioOptions(t, map[string]string{"STDOUT_BANNER": "Secure MCP Filesystem Server running on stdio"}))
	res, err := s.CallTool(context.Background(), "getenv", map[string]any{"name": "HOME"})
	if err != nil {
		t.Fatalf("call after a banner: %v", err)
	}
	textOf(t, res)
	if tail := s.Stderr(); !strings.Contains(tail, "[stdout, not JSON-RPC] (#1) Secure MCP Filesystem Server running on stdio") {
		t.Errorf("stderr tail = %q, want the banner with a note", tail)
	}
	if n := s.SkippedStdoutLines(); n != 1 {
		t.Errorf("SkippedStdoutLines = %d, want 1", n)
	}
}

func TestStdioStartFailureShowsStderr(t *testing.T) {
	o := session.Options{ID: "broken", Command: "sh", Args: []string{"-c", "echo missing API key >&2; exit 2"}}
	_, err := session.Connect(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "missing API key") {
		t.Fatalf("err = %v, want the server's stderr in the error", err)
	}
}

// TestStdioEnvironmentIsAllowlisted: the server gets its env and the
// host's variables env_vars names, not the rest of the host's environment.
func TestStdioEnvironmentIsAllowlisted(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-session-test")
	t.Setenv("SESSION_TEST_WANTED", "passed")
	o := stdioOptions(t, map[string]string{"GREETING": "hello"})
	o.EnvVars = []string{"SESSION_TEST_WANTED"}
	s := connect(t, o)
	for name, want := range map[string]string{"OPENAI_API_KEY": "", "SESSION_TEST_WANTED": "passed", "GREETING": "hello", "PATH": os.Getenv("PATH")} {
		res, err := s.CallTool(context.Background(), "getenv", map[string]any{"name": name})
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := strings.Cut(textOf(t, res), "|"); got != want {
			t.Errorf("the server's %s = %q, want %q", name, got, want)
		}
	}
}

// TestStdioEarlyExitHintsAtEnvVars: a server that exits because a
// variable of the host's is missing fails with its stderr and a hint that
// names the variables it got and env_vars.
func TestStdioEarlyExitHintsAtEnvVars(t *testing.T) {
	t.Setenv("SESSION_HINT_TOKEN", "x")
	o := session.Options{ID: "needy", Command: "sh", Args: []string{"-c", `test -n "$SESSION_HINT_TOKEN" || { echo SESSION_HINT_TOKEN is not set >&2; exit 2; }`}}
	_, err := session.Connect(context.Background(), o)
	if err == nil {
		t.Fatal("connected to a server that exits")
	}
	t.Log(err)
	for _, want := range []string{`server "needy"`, "SESSION_HINT_TOKEN is not set", "only these environment variables", "PATH", `"env_vars"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}
