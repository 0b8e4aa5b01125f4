// Package conformance_test runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in e2e/node) against the client
// in ./client, which drives the real runtime packages.
package conformance_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// expectedFailures reads the scenario names listed in expected-failures.yml.
func expectedFailures(t *testing.T) map[string]bool {
	f, err := os.Open("expected-failures.yml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutPrefix(line, "- "); ok {
			out[strings.TrimSpace(name)] = true
		}
	}
	return out
}

type check struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Error  string `json:"errorMessage"`
}

// results maps each scenario run to its checks, read from the output dir
// (<dir>/<scenario>-<timestamp>/checks.json, auth scenarios one level down).
func results(t *testing.T, dir string) map[string][]check {
	out := map[string][]check{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		name := rel
		if i := strings.LastIndex(rel, "-20"); i > 0 { // strip the timestamp
			name = rel[:i]
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var cs []check
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		out[filepath.ToSlash(name)] = cs
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConformanceSuite(t *testing.T) {
	suite := testenv.ConformanceBin(t)
	root := testenv.RepoRoot(t)
	tmp := t.TempDir()
	client := os.Getenv("CONFORMANCE_CLIENT_BIN")
	if client == "" {
		client = filepath.Join(tmp, "client")
		build := exec.Command("go", "build", "-o", client, "./e2e/conformance/client")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building the conformance client: %v\n%s", err, out)
		}
	}
	outDir := filepath.Join(tmp, "out")
	args := append(suite[1:], "client", "--command", client, "-o", outDir, "--timeout", "30000")
	if sc := os.Getenv("CONFORMANCE_SCENARIO"); sc != "" {
		args = append(args, "--scenario", sc)
	} else {
		args = append(args, "--suite", "all")
	}
	cmd := exec.Command(suite[0], args...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(suite[0])+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("running the suite: %v\n%s", err, out)
	}
	res := results(t, outDir)
	if len(res) == 0 {
		t.Fatalf("the suite wrote no results (exit %v):\n%s", err, out)
	}
	expected := expectedFailures(t)
	names := make([]string, 0, len(res))
	for n := range res {
		names = append(names, n)
	}
	sort.Strings(names)
	var totalPass, totalFail, scenariosPassed int
	for _, name := range names {
		var pass, fail int
		var failures []string
		for _, c := range res[name] {
			switch c.Status {
			case "SUCCESS":
				pass++
			case "FAILURE":
				fail++
				failures = append(failures, c.ID+": "+c.Error)
			}
		}
		totalPass += pass
		totalFail += fail
		passed := pass > 0 && fail == 0
		if passed {
			scenariosPassed++
		}
		t.Logf("%-45s %3d passed %3d failed", name, pass, fail)
		switch {
		case expected[name] && passed:
			t.Errorf("%s now passes: remove it from expected-failures.yml", name)
		case !expected[name] && !passed:
			t.Errorf("%s: %d passed, %d failed checks (a pass needs >= 1 and 0):\n  %s", name, pass, fail, strings.Join(failures, "\n  "))
		}
	}
	t.Logf("total: %d of %d scenarios passed; %d checks passed, %d failed", scenariosPassed, len(names), totalPass, totalFail)
}
