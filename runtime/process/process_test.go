package process_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/process"
)

// The test binary doubles as a local server when this variable is set: it
// prints the names and values of its environment, one per line, and exits.
const childEnv = "PROCESS_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "env" {
		env := os.Environ()
		sort.Strings(env)
		os.Stdout.WriteString(strings.Join(env, "\n") + "\n")
		os.Stderr.WriteString("child done\n")
		return
	}
	if os.Getenv(childEnv) == "session" {
		os.Stdout.WriteString(sessionReport() + "\n")
		os.Stderr.WriteString("child done\n")
		return
	}
	os.Exit(m.Run())
}

// childOptions start the test binary as a server reporting its environment.
func childOptions(t *testing.T) process.Options {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return process.Options{ID: "child", Command: exe, Env: map[string]string{childEnv: "env"}, ShutdownGrace: 500 * time.Millisecond}
}

// runChild starts o and returns what the child printed, as a map.
func runChild(t *testing.T, o process.Options) map[string]string {
	t.Helper()
	p, err := process.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(nil)
	b, err := io.ReadAll(p.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not exit")
	}
	if !strings.Contains(p.Stderr().String(), "child done") {
		t.Errorf("stderr tail = %q", p.Stderr().String())
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		got[strings.ToUpper(k)] = v
	}
	return got
}

// TestStartWithholdsTheHostsEnvironment: a real child gets the base set,
// its env and its env_vars, and none of the host's secrets.
func TestStartWithholdsTheHostsEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-process-test")
	t.Setenv("GITHUB_TOKEN", "ghp-process-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-process-test")
	t.Setenv("PROCESS_TEST_WANTED", "passed")
	o := childOptions(t)
	o.Env["MODE"] = "configured"
	o.EnvVars = []string{"PROCESS_TEST_WANTED", "PROCESS_TEST_NOT_SET"}
	got := runChild(t, o)
	for _, secret := range []string{"OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "PROCESS_TEST_NOT_SET"} {
		if v, ok := got[secret]; ok {
			t.Errorf("the child got %s=%q", secret, v)
		}
	}
	if got["PROCESS_TEST_WANTED"] != "passed" || got["MODE"] != "configured" {
		t.Errorf("the child lacks its env_vars or env: %v", got)
	}
	if got["PATH"] != os.Getenv("PATH") {
		t.Errorf("the child's PATH = %q, want the host's", got["PATH"])
	}
}

// TestStartWrapSeesTheFinalCommand: Wrap gets the command as it will run
// (environment included) and may change it; the start function it returns
// is what starts it; its error, or that function's, stops the start.
func TestStartWrapSeesTheFinalCommand(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-process-test")
	o := childOptions(t)
	var seen []string
	started := false
	o.Wrap = func(cmd *exec.Cmd) (func() error, error) {
		seen = cmd.Env
		cmd.Env = append(cmd.Env, "WRAPPED=1")
		return func() error { started = true; return cmd.Start() }, nil
	}
	got := runChild(t, o)
	if got["WRAPPED"] != "1" {
		t.Error("the change Wrap made did not reach the child")
	}
	if !started {
		t.Error("the child was not started through the function Wrap returned")
	}
	if len(seen) == 0 || strings.Contains(strings.Join(seen, "\n"), "sk-process-test") {
		t.Errorf("Wrap saw the environment %q, want the allowlisted one", seen)
	}

	o.Wrap = func(*exec.Cmd) (func() error, error) { return nil, errors.New("no sandbox") }
	if _, err := process.Start(o); err == nil || !strings.Contains(err.Error(), "no sandbox") {
		t.Errorf("Start with a failing Wrap: %v", err)
	}
	o.Wrap = func(*exec.Cmd) (func() error, error) {
		return func() error { return errors.New("refused at start") }, nil
	}
	if _, err := process.Start(o); err == nil || !strings.Contains(err.Error(), "refused at start") {
		t.Errorf("Start with a failing start function: %v", err)
	}
}
