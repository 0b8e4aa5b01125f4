// Package conformance_test runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in e2e/node) with --suite all
// against the client in ./client, which drives the real runtime packages.
//
// Every client scenario must pass (at least one passed check, none failed)
// unless expected-failures.yml lists it; a listed scenario that passes fails
// the test until its line is removed, so that file only shrinks.
//
// Environment:
//
//	CONFORMANCE_SCENARIO=<name>   run only that scenario
//	CONFORMANCE_CLIENT_BIN=<path> test that client binary instead of building ./client
package conformance_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

const (
	expectedFailuresFile = "expected-failures.yml"
	scenarioEnv          = "CONFORMANCE_SCENARIO"
	clientBinEnv         = "CONFORMANCE_CLIENT_BIN"
	// clientTimeoutMS bounds one client run inside one scenario.
	clientTimeoutMS = 30000
)

func TestConformanceSuite(t *testing.T) {
	suite := testenv.ConformanceBin(t)
	expected, err := readExpectedFailures(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	client := clientBinary(t, tmp)
	outDir := filepath.Join(tmp, "out")

	only := os.Getenv(scenarioEnv)
	args := append(suite[1:], "client", "--command", client, "-o", outDir, "--timeout", strconv.Itoa(clientTimeoutMS))
	if only != "" {
		args = append(args, "--scenario", only)
	} else {
		args = append(args, "--suite", "all")
	}
	run := runSuite(t, suite[0], args)

	results, err := readResults(outDir)
	if err != nil {
		t.Fatalf("reading the suite's results in %s: %v", outDir, err)
	}
	var scenarios []string
	if only != "" {
		if _, ok := results[only]; !ok {
			t.Fatalf("the suite wrote no checks.json for scenario %q (%s)\nstdout:\n%s\nstderr (tail):\n%s", only, run.state, run.stdout, tail(run.stderr, 8<<10))
		}
		scenarios = []string{only}
	} else {
		summary, err := parseSummary(run.stdout)
		if err != nil {
			t.Fatalf("the suite did not finish normally (%s): %v\nstdout:\n%s\nstderr (tail):\n%s", run.state, err, run.stdout, tail(run.stderr, 8<<10))
		}
		if run.exitCode == 1 && summary.failed == 0 && summary.warnings == 0 {
			t.Fatalf("the suite exited 1 though its summary shows no failed checks:\n%s\nstderr (tail):\n%s", run.stdout, tail(run.stderr, 8<<10))
		}
		for _, s := range summary.scenarios {
			scenarios = append(scenarios, s.name)
			if _, ok := results[s.name]; !ok {
				// The scenario itself crashed; the summary holds its only
				// (failed) check.
				results[s.name] = &scenarioResult{name: s.name, failed: s.failed, noResults: true, skipped: s.skipped}
			}
		}
		for name := range results {
			if !summary.has(name) {
				t.Errorf("results for %q are in %s but not in the suite's summary", name, outDir)
			}
		}
		for name, line := range expected {
			if !summary.has(name) {
				t.Errorf("%s:%d lists %q, which the suite does not have: remove it", expectedFailuresFile, line, name)
			}
		}
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%-45s %6s %6s %6s  %s\n", "scenario", "passed", "failed", "warned", "result")
	var checksPassed, checksFailed, checksWarned, scenariosPassed, expectedCount int
	for _, name := range scenarios {
		r := results[name]
		checksPassed += r.passed
		checksFailed += r.failed
		checksWarned += r.warnings
		_, isExpected := expected[name]
		verdict := "FAIL"
		switch {
		case r.pass():
			scenariosPassed++
			verdict = "pass"
			if isExpected {
				verdict = "PASS (listed as expected failure)"
			}
		case isExpected:
			expectedCount++
			verdict = "expected failure"
		}
		if r.noResults {
			verdict += " (no checks.json: the scenario did not run)"
		}
		fmt.Fprintf(&table, "%-45s %6d %6d %6d  %s\n", name, r.passed, r.failed, r.warnings, verdict)

		switch {
		case isExpected && r.pass():
			t.Errorf("%s now passes: remove %s from %s (that file may only shrink)", name, name, expectedFailuresFile)
		case !isExpected && !r.pass():
			t.Errorf("scenario %s: %s", name, r.explain())
		}
		if r.race {
			t.Errorf("scenario %s: the client reported a DATA RACE; see %s", name, filepath.Join(r.dir, "stderr.txt"))
		}
	}
	t.Logf("conformance results (%s):\n%s", client, table.String())
	t.Logf("totals: %d of %d scenarios passed (%d more fail as expected-failures.yml says); checks: %d passed, %d failed, %d warnings",
		scenariosPassed, len(scenarios), expectedCount, checksPassed, checksFailed, checksWarned)
}

// clientBinary returns the client the suite runs: $CONFORMANCE_CLIENT_BIN,
// or ./client built into dir (with -race when this test runs with -race).
func clientBinary(t *testing.T, dir string) string {
	t.Helper()
	client := os.Getenv(clientBinEnv)
	if client == "" {
		root := testenv.RepoRoot(t)
		if _, err := os.Stat(filepath.Join(root, "e2e", "conformance", "client")); err != nil {
			t.Fatalf("the conformance client ./e2e/conformance/client does not exist yet: %v (set %s to test another client binary)", err, clientBinEnv)
		}
		client = filepath.Join(dir, "client")
		args := []string{"build", "-o", client}
		if raceEnabled {
			args = append(args, "-race")
		}
		build := exec.Command("go", append(args, "./e2e/conformance/client")...)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./e2e/conformance/client: %v\n%s", err, out)
		}
	}
	abs, err := filepath.Abs(client)
	if err != nil {
		t.Fatalf("%s=%q: %v", clientBinEnv, client, err)
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		t.Fatalf("conformance client %s is not an executable file (err: %v)", abs, err)
	}
	// The suite runs "<command> <server url>" through a shell.
	if strings.ContainsAny(abs, " \t\n'\"\\$`;&|<>*?()[]{}") {
		t.Fatalf("conformance client path %q has characters the suite's shell would split or expand", abs)
	}
	return abs
}

// suiteRun is how the suite process ended.
type suiteRun struct {
	stdout, stderr []byte
	exitCode       int
	state          string
}

// runSuite runs the suite in its own process group and fails the test when
// it ends abnormally: killed, timed out, or an exit code other than 0 (all
// passed) and 1 (some check failed).
func runSuite(t *testing.T, node string, args []string) suiteRun {
	t.Helper()
	timeout := 20 * time.Minute
	if d, ok := t.Deadline(); ok {
		timeout = time.Until(d) - 30*time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	testenv.OwnGroup(cmd)
	cmd.Cancel = func() error { testenv.KillGroup(cmd); return nil }
	cmd.WaitDelay = 5 * time.Second
	t.Logf("running %s %s", node, strings.Join(args, " "))
	start := time.Now()
	err := cmd.Run()
	// Nothing the suite started may outlive it.
	if cmd.Process != nil {
		testenv.KillGroup(cmd)
	}
	run := suiteRun{stdout: stdout.Bytes(), stderr: stderr.Bytes(), exitCode: cmd.ProcessState.ExitCode()}
	run.state = fmt.Sprintf("%s after %v", cmd.ProcessState, time.Since(start).Round(time.Millisecond))
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("the conformance suite did not finish within %v; stdout:\n%s\nstderr (tail):\n%s", timeout, run.stdout, tail(run.stderr, 8<<10))
	case err != nil && !errors.As(err, &exitErr):
		t.Fatalf("running the conformance suite: %v\nstderr (tail):\n%s", err, tail(run.stderr, 8<<10))
	case run.exitCode != 0 && run.exitCode != 1:
		t.Fatalf("the conformance suite ended abnormally (%s); stdout:\n%s\nstderr (tail):\n%s", run.state, run.stdout, tail(run.stderr, 8<<10))
	}
	return run
}

func tail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append([]byte(fmt.Sprintf("[%d earlier bytes cut]\n", len(b)-n)), b[len(b)-n:]...)
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// raceEnabled reports whether this test binary was built with -race; the
// client is then built with -race too, so the suite also hunts data races in
// the runtime packages.
var raceEnabled = func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}()
