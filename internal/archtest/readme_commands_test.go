package archtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A hostCommand is one `host ...` command a Markdown file writes, as its
// words, with the line it starts on.
type hostCommand struct {
	line  int
	words []string
}

var (
	// envAssign is a shell variable assignment before a command.
	envAssign = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=\S*$`)
	// flagWord is a flag as a command line writes it.
	flagWord = regexp.MustCompile(`^--?[A-Za-z][A-Za-z0-9-]*$`)
)

// hostCommands returns the `host ...` commands of a Markdown file: the
// lines of its code blocks and its inline code spans that start with
// `host` (or ./bin/host, after any VAR=value), a code line's comment left
// out and its trailing backslash joined to the next line.
func hostCommands(text string) []hostCommand {
	var out []hostCommand
	add := func(line int, s string) {
		words := strings.Fields(s)
		for len(words) > 0 && (words[0] == "$" || envAssign.MatchString(words[0])) {
			words = words[1:]
		}
		if len(words) > 1 && (words[0] == "host" || words[0] == "./bin/host" || words[0] == "bin/host") {
			out = append(out, hostCommand{line, words})
		}
	}
	lines := mdLines(text)
	var prose strings.Builder
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if i > 0 {
			prose.WriteByte('\n')
		}
		if !l.code {
			prose.WriteString(l.text)
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(l.text, " "), "```") {
			continue
		}
		s, start := l.text, l.n
		for strings.HasSuffix(strings.TrimRight(s, " "), "\\") && i+1 < len(lines) && lines[i+1].code {
			i++
			prose.WriteByte('\n')
			s = strings.TrimSuffix(strings.TrimRight(s, " "), "\\") + " " + lines[i].text
		}
		if c := strings.Index(s, " #"); c >= 0 {
			s = s[:c]
		}
		add(start, s)
	}
	// Inline code, paragraph by paragraph (a span may wrap).
	text = prose.String()
	off := 0
	for _, p := range strings.Split(text, "\n\n") {
		for _, sp := range codeSpans(p) {
			code := strings.Trim(p[sp[0]:sp[1]], "`")
			add(strings.Count(text[:off+sp[0]], "\n")+1, code)
		}
		off += len(p) + 2
	}
	return out
}

// A cli says which commands and flags `host` has.
type cli interface {
	// hasCommand reports whether the command path (nil: host itself) has
	// the subcommand word.
	hasCommand(path []string, word string) bool
	// hasFlag reports whether the command path (nil: host itself) takes
	// the flag (-x or --name).
	hasFlag(path []string, flag string) bool
}

// subcommanded are the commands whose next word is a subcommand.
var subcommanded = map[string]bool{"mcp": true, "protocol": true, "completion": true}

// commandProblems says what of c names no command or flag of host. A
// placeholder (<id>, <command>, ...) ends what is checked of the path;
// the words after a lone -- are the server's own command line, and a
// shell operator (| outside [...], ;, &&) ends the command.
func commandProblems(c cli, words []string) []string {
	var out []string
	var path []string
	depth := 0
	placeholder := func(w string) bool { return strings.ContainsAny(w, "<>") || w == "..." || w == "…" }
	clean := func(w string) string { return strings.Trim(w, "[](){},;:.'\"`") }
	pathDone := false
	for i, raw := range words[1:] {
		if depth == 0 && (raw == "|" || raw == "||" || raw == "&&" || raw == ";") || raw == "--" {
			break
		}
		depth += strings.Count(raw, "[") - strings.Count(raw, "]")
		w := clean(raw)
		if w == "" || placeholder(w) {
			if !strings.HasPrefix(w, "-") {
				pathDone = true
			}
			continue
		}
		if strings.HasPrefix(w, "-") {
			pathDone = true
			for _, f := range strings.Split(w, "/") {
				f, _, _ = strings.Cut(f, "=")
				if flagWord.MatchString(f) && f != "-h" && f != "--help" && !c.hasFlag(path, f) {
					out = append(out, fmt.Sprintf("%s takes no flag %s", strings.Join(append([]string{"host"}, path...), " "), f))
				}
			}
			continue
		}
		takesSub := i == 0 || (len(path) == 1 && subcommanded[path[0]]) ||
			(len(path) == 2 && path[0] == "mcp" && path[1] == "permissions" && (w == "list" || w == "revoke"))
		if pathDone || !takesSub {
			pathDone = true
			continue
		}
		alts := strings.FieldsFunc(w, func(r rune) bool { return r == '|' || r == '/' })
		for _, a := range alts {
			if !c.hasCommand(path, a) {
				// Its flags are not worth checking against a missing command.
				return append(out, fmt.Sprintf("%s has no command %q", strings.Join(append([]string{"host"}, path...), " "), a))
			}
		}
		path = append(path, alts[0])
	}
	return out
}

// mistyped are the commands the docs write wrong on purpose: the example
// of what a typo gets (CLI.md, "Help and mistakes").
var mistyped = map[string]bool{"host mcp rm": true}

// commandFileProblems checks every `host ...` command of a Markdown file.
func commandFileProblems(c cli, name, text string) []string {
	var out []string
	for _, hc := range hostCommands(text) {
		if mistyped[strings.Join(hc.words, " ")] {
			continue
		}
		for _, p := range commandProblems(c, hc.words) {
			out = append(out, fmt.Sprintf("%s:%d: `%s`: %s", name, hc.line, strings.Join(hc.words, " "), p))
		}
	}
	return out
}

// binaryCLI asks a built host: `host __complete -- <path> ""` lists a
// command's subcommands and `host __complete -- <path> -` its flags (the
// completion scripts' candidates, one a line, then a ":N" line). A
// top-level word completion does not offer (a hidden command) counts when
// `host <word> --help` exits 0.
type binaryCLI struct {
	t        *testing.T
	bin, dir string // the binary, and the empty directory it runs in
	env      []string
	cache    map[string][]string
}

func (b *binaryCLI) run(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.bin, args...)
	cmd.Env, cmd.Dir = b.env, b.dir
	return cmd.Output()
}

func (b *binaryCLI) complete(path []string, last string) []string {
	key := strings.Join(path, " ") + "|" + last
	if got, ok := b.cache[key]; ok {
		return got
	}
	out, err := b.run(append(append([]string{"__complete", "--"}, path...), last)...)
	if err != nil {
		b.t.Fatalf("host __complete -- %s %q: %v", strings.Join(path, " "), last, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		b.t.Fatalf("host __complete -- %s %q: no :N line at the end:\n%s", strings.Join(path, " "), last, out)
	}
	b.cache[key] = lines[:len(lines)-1]
	return b.cache[key]
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func (b *binaryCLI) hasCommand(path []string, word string) bool {
	if contains(b.complete(path, ""), word) {
		return true
	}
	if len(path) == 0 && !strings.HasPrefix(word, "_") {
		_, err := b.run(word, "--help")
		return err == nil
	}
	return false
}

func (b *binaryCLI) hasFlag(path []string, flag string) bool {
	return contains(b.complete(path, "-"), flag)
}

// Every `host ...` command that README.md and docs/*.md write names a
// command, a subcommand and flags the built host has.
func TestDocHostCommandsExist(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "host")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/host")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/host: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "MCP_HOST_CONFIG="+filepath.Join(home, "config.json"), "MCP_HOST_SERVERS=")
	c := &binaryCLI{t: t, bin: bin, dir: t.TempDir(), env: env, cache: map[string][]string{}}
	if !c.hasCommand(nil, "mcp") || !c.hasFlag([]string{"mcp", "add"}, "--from-registry") || c.hasCommand(nil, "nosuchcommand") {
		t.Fatal("host __complete does not answer as this test expects")
	}
	n := 0
	for _, d := range docFiles(t, root) {
		n += len(hostCommands(d.text))
		for _, p := range commandFileProblems(c, d.rel, d.text) {
			t.Error(p)
		}
	}
	t.Logf("%d `host ...` commands checked", n)
	if n < 100 {
		t.Errorf("found only %d `host ...` commands in README.md and docs/*.md: the scan is broken", n)
	}
}

// fakeCLI is a host with a few commands, for the check's own test.
type fakeCLI map[string][]string // path → subcommands and flags

func (f fakeCLI) hasCommand(path []string, word string) bool {
	return contains(f[strings.Join(path, " ")], word)
}

func (f fakeCLI) hasFlag(path []string, flag string) bool {
	return contains(f[strings.Join(path, " ")], flag)
}

// The command check finds a missing command, subcommand and flag, with
// the line they are written on, and passes real ones.
func TestCommandProblemsFindsBrokenCommands(t *testing.T) {
	f := fakeCLI{"": {"chat", "mcp", "--version"}, "chat": {"--script"}, "mcp": {"add", "list"},
		"mcp add": {"-e", "--env", "--scope"}, "mcp list": {"--json"}}
	good := "# Good\n\nRun `host chat --script FILE` or `host --version`, `host <command> --help`,\n" +
		"`host mcp add <id> [flags] -- <command> [args...]`, `host mcp\nlist --json`, `host mcp add/list`.\n\n" +
		"```sh\nhost mcp add x -e/--env K=V -- npx -y pkg --not-ours   # a comment --nope\n" +
		"VAR=1 host mcp list \\\n  --json | jq --raw\n```\n"
	if p := commandFileProblems(f, "good.md", good); len(p) > 0 {
		t.Errorf("real commands: %q", p)
	}
	broken := "# Broken\n\nRun `host chta`.\n\n```\nhost mcp ad x --jsn\nhost mcp list --jsn\n```\n\nThen `host mcp\nadd x --scop global`.\n"
	got := strings.Join(commandFileProblems(f, "broken.md", broken), "\n")
	for _, want := range []string{
		"broken.md:3: `host chta`: host has no command \"chta\"",
		"broken.md:6: `host mcp ad x --jsn`: host mcp has no command \"ad\"",
		"broken.md:7: `host mcp list --jsn`: host mcp list takes no flag --jsn",
		"broken.md:10: `host mcp add x --scop global`: host mcp add takes no flag --scop",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems of broken commands lack %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "\n") != 3 {
		t.Errorf("want 4 problems, got:\n%s", got)
	}
}
