package e2e_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// addExamples returns every `host mcp add` example the README, the docs
// (docs/*.md: the command reference is docs/CLI.md), `host --help` and
// `host mcp add --help` show (the usage lines with <id> placeholders
// aside), as a person would copy them.
func addExamples(t *testing.T, h *hostCLI) []string {
	t.Helper()
	root := testenv.RepoRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, f := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	top, _, _ := h.run(t, nil, "--help")
	add, _, _ := h.run(t, nil, "mcp", "add", "--help")
	var out []string
	for _, text := range append(texts, top, add) {
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "host mcp add ") && !strings.Contains(l, "<") && !strings.Contains(l, "--help") {
				out = append(out, l)
			}
		}
	}
	if len(out) < 5 {
		t.Fatalf("found only %d `host mcp add` examples: %q", len(out), out)
	}
	return out
}

// runShell runs line with bash -c, `host` on the PATH, in a fresh home
// and config, with env added; it returns the output, the exit code and
// the directory every file it could write is in.
func runShell(t *testing.T, bin, line string, env []string) (string, int, string) {
	t.Helper()
	dir := t.TempDir()
	shims := filepath.Join(dir, "bin")
	home := filepath.Join(dir, "home")
	project := filepath.Join(home, "project")
	for _, d := range []string{shims, project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(shims, "host")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "MCP_HOST_CONFIG="+filepath.Join(home, "config.json"), "MCP_HOST_SERVERS=")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code, home
}

// filesHolding lists the files under dir that contain s.
func filesHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(s)) {
			hits = append(hits, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// TestCLIAddExamplesKeepSecrets runs every `host mcp add` example of the
// README, the docs and the help, as written, in bash: with the variables it names
// set, no file gets their values; with them unset, add says so (or
// refuses). The double-quoted form people type anyway is warned about
// when the shell expanded a secret into it, and refused when it expanded
// to nothing; so is a literal secret in -e, and an empty one.
func TestCLIAddExamplesKeepSecrets(t *testing.T) {
	h := newHostCLI(t)
	ref := regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	withRef := 0
	for _, ex := range addExamples(t, h) {
		names := ref.FindAllStringSubmatch(ex, -1)
		if len(names) == 0 {
			continue
		}
		withRef++
		var env []string
		for _, n := range names {
			env = append(env, n[1]+"=s3cret-"+n[1]+"-value")
		}
		out, code, home := runShell(t, h.bin, ex, env)
		if code != 0 {
			t.Errorf("%s\nwith %v set: exit %d\n%s", ex, env, code, out)
		}
		for _, n := range names {
			if hits := filesHolding(t, home, "s3cret-"+n[1]+"-value"); len(hits) > 0 {
				t.Errorf("%s\nwith %s set wrote its value into %q", ex, n[1], hits)
			}
		}
		if !strings.Contains(filesJoined(t, home), "${"+names[0][1]+"}") {
			t.Errorf("%s\nwith %s set: no file holds the reference ${%s}:\n%s", ex, names[0][1], names[0][1], filesJoined(t, home))
		}
		var unset []string
		for _, n := range names {
			unset = append(unset, n[1])
		}
		out, code, home = runShell(t, h.bin, "unset "+strings.Join(unset, " ")+"; "+ex, nil)
		if code == 0 && !strings.Contains(out, names[0][1]+" is not set") {
			t.Errorf("%s\nwith %s unset: exit 0 and no word about it:\n%s", ex, names[0][1], out)
		}
		if all := filesJoined(t, home); strings.Contains(all, `"Bearer"`) || strings.Contains(all, `"Bearer "`) {
			t.Errorf("%s\nwith %s unset wrote an empty credential:\n%s", ex, names[0][1], all)
		}
	}
	if withRef == 0 {
		t.Fatal("no example with a ${VAR}: the test checks nothing")
	}

	// What a person types anyway: double quotes, which the shell expands.
	typed := `host mcp add gh https://example.com/mcp -H "Authorization: Bearer ${GH_TOKEN}"`
	out, code, _ := runShell(t, h.bin, typed, []string{"GH_TOKEN=ghp_abcdefghijklmnop0123456789"})
	if code != 0 || !strings.Contains(out, "Authorization") || !strings.Contains(out, `'Authorization: Bearer ${`) || strings.Contains(out, "ghp_abc") {
		t.Errorf("%s with the token set: exit %d, want 0 and a warning suggesting the ${VAR} form (the token not repeated):\n%s", typed, code, out)
	}
	out, code, home := runShell(t, h.bin, "unset GH_TOKEN; "+typed, nil)
	if code != 2 || !strings.Contains(out, "Authorization") || strings.Count(strings.TrimSpace(out), "\n") > 1 {
		t.Errorf("%s with the token unset: exit %d, want 2 and one line naming the header:\n%s", typed, code, out)
	}
	if files := filesJoined(t, home); files != "" {
		t.Errorf("the refused add wrote:\n%s", files)
	}
	out, code, _ = runShell(t, h.bin, `host mcp add files -e API_KEY=sk-literal0123456789 -- npx -y some-server`, nil)
	if code != 0 || !strings.Contains(out, "API_KEY") || !strings.Contains(out, "${") || strings.Contains(out, "sk-literal") {
		t.Errorf("a literal secret in -e: exit %d, want 0 and a warning suggesting ${API_KEY}:\n%s", code, out)
	}
	out, code, _ = runShell(t, h.bin, `host mcp add files -e API_KEY= -- npx -y some-server`, nil)
	if code != 2 || !strings.Contains(out, "API_KEY") {
		t.Errorf("an empty secret in -e: exit %d, want 2 naming it:\n%s", code, out)
	}
	out, code, _ = runShell(t, h.bin, `host mcp add x https://example.com/mcp -H 'X-Api-Key:'`, nil)
	if code != 2 || !strings.Contains(out, "X-Api-Key") {
		t.Errorf("an empty header: exit %d, want 2 naming it:\n%s", code, out)
	}
}

// filesJoined returns every file under dir, each after its name.
func filesJoined(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		b.WriteString("== " + path + "\n" + string(data) + "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
