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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
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
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	t.Logf("running %s %s", node, strings.Join(args, " "))
	start := time.Now()
	err := cmd.Run()
	// Nothing the suite started may outlive it.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
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

// summaryLine is one scenario in the suite's closing summary.
type summaryLine struct {
	name                     string
	passed, failed, warnings int
	skipped                  bool
}

type summary struct {
	scenarios                []summaryLine
	passed, failed, warnings int
}

func (s *summary) has(name string) bool {
	for _, l := range s.scenarios {
		if l.name == name {
			return true
		}
	}
	return false
}

var (
	runningRE = regexp.MustCompile(`(?m)^Running .* \((\d+) scenarios\) in parallel`)
	resultRE  = regexp.MustCompile(`^[✓✗] (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$`)
	skippedRE = regexp.MustCompile(`^- (\S+): skipped$`)
	totalRE   = regexp.MustCompile(`^Total: (\d+) passed, (\d+) failed, (\d+) warnings`)
)

// parseSummary reads the "=== SUITE SUMMARY ===" block the suite prints on
// stdout when it finishes, and checks it covers every scenario it started.
func parseSummary(stdout []byte) (*summary, error) {
	m := runningRE.FindSubmatch(stdout)
	if m == nil {
		return nil, errors.New(`no "Running ... (N scenarios)" line`)
	}
	want, _ := strconv.Atoi(string(m[1]))
	_, block, ok := bytes.Cut(stdout, []byte("=== SUITE SUMMARY ==="))
	if !ok {
		return nil, errors.New("no SUITE SUMMARY")
	}
	s := &summary{}
	total := false
	sc := bufio.NewScanner(bytes.NewReader(block))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := resultRE.FindStringSubmatch(line); m != nil {
			l := summaryLine{name: m[1]}
			l.passed, _ = strconv.Atoi(m[2])
			l.failed, _ = strconv.Atoi(m[3])
			l.warnings, _ = strconv.Atoi(m[4]) // "" when absent: 0
			s.scenarios = append(s.scenarios, l)
		} else if m := skippedRE.FindStringSubmatch(line); m != nil {
			s.scenarios = append(s.scenarios, summaryLine{name: m[1], skipped: true})
		} else if m := totalRE.FindStringSubmatch(line); m != nil {
			s.passed, _ = strconv.Atoi(m[1])
			s.failed, _ = strconv.Atoi(m[2])
			s.warnings, _ = strconv.Atoi(m[3])
			total = true
		}
	}
	if !total {
		return nil, errors.New("the summary has no Total line")
	}
	if len(s.scenarios) != want {
		return nil, fmt.Errorf("the suite started %d scenarios and its summary lists %d", want, len(s.scenarios))
	}
	return s, nil
}

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// scenarioResult is what the suite recorded for one scenario.
type scenarioResult struct {
	name                     string
	dir                      string
	checks                   []check
	passed, failed, warnings int
	skipped                  bool
	noResults                bool   // the scenario wrote no checks.json
	clientStderr             string // tail of the client's stderr
	race                     bool   // the client's stderr reports a data race
}

// pass is the verdict: at least one passed check and none failed. A scenario
// with no checks does not pass.
func (r *scenarioResult) pass() bool { return r.passed > 0 && r.failed == 0 }

// explain says why a scenario did not pass.
func (r *scenarioResult) explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d passed, %d failed checks (a pass needs at least 1 passed and 0 failed)", r.passed, r.failed)
	switch {
	case r.skipped:
		b.WriteString("; the suite skipped it")
	case r.noResults:
		b.WriteString("; the scenario did not run to completion (no checks.json; see the suite's stderr)")
	}
	for _, c := range r.checks {
		if c.Status == "FAILURE" {
			msg := c.ErrorMessage
			if msg == "" {
				msg = c.Description
			}
			fmt.Fprintf(&b, "\n  FAILURE %s: %s", c.ID, msg)
		}
	}
	if r.clientStderr != "" {
		fmt.Fprintf(&b, "\n  client stderr (tail):\n%s", indent(r.clientStderr, "    "))
	}
	return b.String()
}

// timestampRE matches the suffix the suite appends to each result directory:
// <scenario>-<ISO time with : and . replaced by ->.
var timestampRE = regexp.MustCompile(`^(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// readResults reads every <dir>/<scenario>-<timestamp>/checks.json (auth
// scenarios are one directory deeper: auth/<name>-<timestamp>).
func readResults(dir string) (map[string]*scenarioResult, error) {
	out := map[string]*scenarioResult{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != "checks.json" {
			return nil
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		m := timestampRE.FindStringSubmatch(filepath.ToSlash(rel))
		if m == nil {
			return fmt.Errorf("%s: directory name has no timestamp suffix", path)
		}
		name := m[1]
		if prev, dup := out[name]; dup {
			return fmt.Errorf("two result directories for %s: %s and %s", name, prev.dir, filepath.Dir(path))
		}
		r := &scenarioResult{name: name, dir: filepath.Dir(path)}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &r.checks); err != nil {
			return fmt.Errorf("parsing %s: %w", path, err)
		}
		for _, c := range r.checks {
			switch c.Status {
			case "SUCCESS":
				r.passed++
			case "FAILURE":
				r.failed++
			case "WARNING":
				r.warnings++
			}
		}
		if stderr, err := os.ReadFile(filepath.Join(r.dir, "stderr.txt")); err == nil {
			r.race = bytes.Contains(stderr, []byte("WARNING: DATA RACE"))
			r.clientStderr = string(tail(stderr, 2<<10))
		}
		out[name] = r
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) && len(out) == 0 {
		return out, nil // the suite wrote nothing; the caller says why
	}
	return out, err
}

// readExpectedFailures reads the client: list of the suite's own
// expected-failures format and returns each scenario with its line number.
// Anything it does not understand is an error, so a typo cannot hide a
// failure.
func readExpectedFailures(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the expected failures: %w", err)
	}
	out := map[string]int{}
	section := ""
	for i, raw := range strings.Split(string(b), "\n") {
		n := i + 1
		line := raw
		if j := strings.Index(line, "#"); j >= 0 && (j == 0 || line[j-1] == ' ' || line[j-1] == '\t') {
			line = line[:j]
		}
		line = strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
		case line == trimmed && strings.HasSuffix(line, ":"):
			section = strings.TrimSuffix(line, ":")
			if section != "client" && section != "server" {
				return nil, fmt.Errorf("%s:%d: unknown section %q (want client: or server:)", path, n, section)
			}
		case strings.HasPrefix(trimmed, "- ") && line != trimmed:
			name := strings.Trim(strings.TrimSpace(strings.TrimPrefix(trimmed, "- ")), `"'`)
			if section == "" {
				return nil, fmt.Errorf("%s:%d: %q is not under client:", path, n, name)
			}
			if section != "client" {
				continue
			}
			if name == "" || strings.ContainsAny(name, " \t:") {
				return nil, fmt.Errorf("%s:%d: %q is not a scenario name", path, n, name)
			}
			if prev, dup := out[name]; dup {
				return nil, fmt.Errorf("%s:%d: %s is already listed on line %d", path, n, name, prev)
			}
			out[name] = n
		default:
			return nil, fmt.Errorf("%s:%d: cannot parse %q (want 'client:' then '  - scenario-name' lines)", path, n, raw)
		}
	}
	return out, nil
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

func TestParseSummary(t *testing.T) {
	good := `Running all suite (3 scenarios) in parallel...

Starting scenario noise
=== SUITE SUMMARY ===

✓ initialize: 1 passed, 0 failed
✗ auth/dpop: 0 passed, 3 failed, 1 warnings
- sep-2640-client-no-prefetch: skipped

Total: 1 passed, 3 failed, 1 warnings, 1 skipped
`
	s, err := parseSummary([]byte(good))
	if err != nil {
		t.Fatalf("parseSummary: %v", err)
	}
	want := []summaryLine{
		{name: "initialize", passed: 1},
		{name: "auth/dpop", failed: 3, warnings: 1},
		{name: "sep-2640-client-no-prefetch", skipped: true},
	}
	if fmt.Sprint(s.scenarios) != fmt.Sprint(want) || s.passed != 1 || s.failed != 3 || s.warnings != 1 {
		t.Errorf("parseSummary = %+v, want scenarios %+v and totals 1/3/1", s, want)
	}
	for name, bad := range map[string]string{
		"no total":        strings.Split(good, "Total:")[0],
		"missing line":    strings.Replace(good, "✓ initialize: 1 passed, 0 failed\n", "", 1),
		"no summary":      strings.Split(good, "=== SUITE")[0],
		"no running line": strings.Replace(good, "Running all suite (3 scenarios)", "Hello", 1),
	} {
		if _, err := parseSummary([]byte(bad)); err == nil {
			t.Errorf("%s: parseSummary accepted\n%s", name, bad)
		}
	}
}

func TestReadExpectedFailures(t *testing.T) {
	// The committed file parses and lists client scenarios only.
	got, err := readExpectedFailures(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	for name := range got {
		if !strings.HasPrefix(name, "auth/") && !strings.HasPrefix(name, "sep-2640-client-") {
			t.Errorf("%s lists %q; only auth/* and sep-2640-client-* may fail for now", expectedFailuresFile, name)
		}
	}

	dir := t.TempDir()
	parse := func(content string) (map[string]int, error) {
		p := filepath.Join(dir, "f.yml")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return readExpectedFailures(p)
	}
	m, err := parse("# top\nclient:\n  - a/b # why\n  # note\n  - \"c\"\nserver:\n  - s\n")
	if err != nil || fmt.Sprint(m) != "map[a/b:3 c:5]" {
		t.Errorf("parse = %v, %v; want map[a/b:3 c:5]", m, err)
	}
	for _, bad := range []string{
		"client:\n  - a\n  - a\n", // duplicate
		"  - a\n",                 // no section
		"clients:\n  - a\n",       // unknown section
		"client:\n  a\n",          // not a list item
		"client:\n- a\n",          // unindented item
		"client:\n  - a: b\n",     // not a name
	} {
		if m, err := parse(bad); err == nil {
			t.Errorf("parse(%q) = %v, want an error", bad, m)
		}
	}
}

func TestReadResults(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("initialize-2026-11-22T13-41-51-123Z/checks.json", `[{"id":"a","status":"SUCCESS"},{"id":"b","status":"INFO"}]`)
	write("auth/dpop-2026-11-22T13-41-51-456Z/checks.json", `[{"id":"a","status":"SUCCESS"},{"id":"b","status":"FAILURE","errorMessage":"no proof"},{"id":"c","status":"WARNING"}]`)
	write("auth/dpop-2026-11-22T13-41-51-456Z/stderr.txt", "WARNING: DATA RACE\n")
	write("empty-2026-11-22T13-41-51-789Z/checks.json", `[]`)
	res, err := readResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if keys := fmt.Sprint(sortedKeys(res)); keys != "[auth/dpop empty initialize]" {
		t.Fatalf("scenarios = %s", keys)
	}
	if r := res["initialize"]; !r.pass() || r.passed != 1 || r.race {
		t.Errorf("initialize = %+v, want a pass with 1 check", r)
	}
	if r := res["auth/dpop"]; r.pass() || r.passed != 1 || r.failed != 1 || r.warnings != 1 || !r.race || !strings.Contains(r.explain(), "no proof") {
		t.Errorf("auth/dpop = %+v, want 1/1/1, a race, and the failure explained", r)
	}
	if r := res["empty"]; r.pass() {
		t.Errorf("a scenario with no checks passed: %+v", r)
	}
	write("initialize-2026-11-22T13-41-52-000Z/checks.json", `[]`)
	if _, err := readResults(dir); err == nil {
		t.Error("two result directories for one scenario were accepted")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
