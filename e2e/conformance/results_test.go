package conformance_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

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
