package e2e_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/protocol"
)

// completionUser is a user's machine for the shell completion tests: a
// config with two servers, lz (e2e/internal/lazystdio, whose catalog a
// host serve run kept: two plain tools, one with a colon and hostile
// ones) and docs (an http server, off, never reached), and "host" on
// PATH.
type completionUser struct {
	l      *lazyEnv
	env    []string // the user's environment, PATH with host first
	dir    string   // the working directory: no project config
	starts int      // lz's starts before any completion
}

// completionSecret is in the config (an env value and a header value):
// completion must never print it.
const completionSecret = "s3cr3t-completion-never-shown"

func newCompletionUser(t *testing.T) *completionUser {
	t.Helper()
	l := newLazyEnv(t)
	l.offer(t, "alpha says alpha", "beta says beta", "ns:read reads", "evil\x1b]0;pwned\x07 hostile", "semi;colon hostile", "-evil hostile")
	config := filepath.Join(l.dir, "config.json")
	writeJSONFile(t, config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"lz":   map[string]any{"command": l.bin, "args": []string{"-tools", l.tools, "-starts", l.starts}, "sandbox": false, "env": map[string]string{"TOKEN": completionSecret}},
		"docs": map[string]any{"url": "http://127.0.0.1:9/mcp", "enabled": false, "headers": map[string]string{"Authorization": "Bearer " + completionSecret}},
	}}})
	cache := filepath.Join(l.dir, "cache")
	env := []string{"MCP_HOST_CONFIG=" + config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file", "HOME=" + l.dir, "MCP_HOST_CACHE_DIR=" + cache}

	// One host serve run lists lz's tools, and keeps its catalog.
	h := startServe(t, env, "--permissions", filepath.Join(l.dir, "permissions.json"))
	ctx := ctxT(t, 3*time.Minute)
	if _, err := h.rt.Initialize(ctx, &protocol.InitializeParams{ProtocolVersion: protocol.Version, Capabilities: protocol.UICapabilities{Confirm: true}}); err != nil {
		t.Fatal(err)
	}
	waitLZ(t, h, ctx, protocol.StateReady)
	stopServe(t, h)
	// The catalog keeps the server's names as they came: completion is
	// what must leave the hostile ones out.
	kept, _ := filepath.Glob(filepath.Join(cache, "catalogs", "*.json"))
	if len(kept) != 1 {
		t.Fatalf("host serve kept %d catalogs, want lz's", len(kept))
	}
	if b, err := os.ReadFile(kept[0]); err != nil || !strings.Contains(string(b), "pwned") {
		t.Fatalf("the kept catalog lacks the hostile tool name (%v)", err)
	}

	bin := filepath.Join(l.dir, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(buildHost(t), filepath.Join(bin, "host")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(l.dir, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return &completionUser{l: l, env: env, dir: dir, starts: len(l.pids(t))}
}

// script is "host completion <shell>" written to a file.
func (u *completionUser) script(t *testing.T, shell string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(u.l.dir, "bin", "host"), "completion", shell)
	cmd.Env, cmd.Dir = append(os.Environ(), u.env...), u.dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("host completion %s: %v", shell, err)
	}
	f := filepath.Join(u.l.dir, "completion."+shell)
	if err := os.WriteFile(f, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// shell runs argv in the user's environment and returns its output lines.
func (u *completionUser) shell(t *testing.T, argv ...string) []string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = append(os.Environ(), u.env...), u.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%q: %v\n%s", argv, err, out)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// clean fails t when completion output holds a control character, a
// hostile tool name or the config's secret, or when lz was started.
func (u *completionUser) clean(t *testing.T, words []string, got []string) {
	t.Helper()
	all := strings.Join(got, "\n")
	for _, bad := range []string{"\x1b", "\a", "pwned", ";", "-evil", completionSecret} {
		if strings.Contains(all, bad) {
			t.Errorf("%q completed with %q: %q", words, bad, got)
		}
	}
	if n := len(u.l.pids(t)); n != u.starts {
		t.Errorf("%q: lz started %d times, want %d (completion must not start a server)", words, n, u.starts)
	}
}

// completionCases are what the user types (the last word under the
// cursor; bash splits "--scope=g" and "ns:r" itself) and the candidates.
var completionCases = []struct {
	words []string
	want  []string
}{
	{[]string{"host", "mcp", "im"}, []string{"import"}},
	{[]string{"host", "mcp", "get", ""}, []string{"docs", "lz"}},
	{[]string{"host", "mcp", "enable", "d"}, []string{"docs"}},
	{[]string{"host", "mcp", "call", "lz", ""}, []string{"alpha", "beta", "ns:read"}},
	{[]string{"host", "mcp", "call", "docs", ""}, nil},
	{[]string{"host", "mcp", "call", "--y"}, []string{"--yes"}},
	{[]string{"host", "mcp", "add", "x", "--sandbox", ""}, []string{"default", "strict", "false"}},
	{[]string{"host", "mcp", "add", "x", "-t", "s"}, []string{"sse", "stdio"}},
	{[]string{"host", "mcp", "import", "--from", "cod"}, []string{"codex"}},
	{[]string{"host", "serve", "--conf"}, []string{"--confirm-timeout"}},
}

// bash sources "host completion bash" and completes as it would on TAB:
// COMP_WORDS and COMP_CWORD set, _host called, COMPREPLY printed. The
// candidates come from the config and the catalog host serve kept; no
// server starts.
func TestCLICompletionBash(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	if goruntime.GOOS == "windows" {
		t.Skip("bash completion: not on Windows")
	}
	bash, err := exec.LookPath("bash")
	testenv.Require(t, "bash", err)
	u := newCompletionUser(t)
	script := u.script(t, "bash")
	const run = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _host; printf '%s\n' "${COMPREPLY[@]}"`
	cases := append(slices.Clone(completionCases),
		struct{ words, want []string }{[]string{"host", "mcp", "add", "x", "--scope", "=", "g"}, []string{"global"}},
		struct{ words, want []string }{[]string{"host", "mcp", "call", "lz", "ns", ":", "r"}, []string{"read"}})
	for _, tc := range cases {
		start := time.Now()
		got := u.shell(t, append([]string{bash, "--norc", "--noprofile", "-c", run, "bash", script}, tc.words...)...)
		got = slices.DeleteFunc(got, func(s string) bool { return s == "" })
		if !slices.Equal(got, tc.want) {
			t.Errorf("bash %q: COMPREPLY %q, want %q", tc.words, got, tc.want)
		}
		u.clean(t, tc.words, got)
		t.Logf("bash %q: %s", tc.words, time.Since(start).Round(time.Millisecond))
	}
}

// The zsh and fish scripts parse, and complete from host __complete
// (scripts/deps.sh installs both shells).
func TestCLICompletionZshFish(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	zsh, zshErr := exec.LookPath("zsh")
	fish, fishErr := exec.LookPath("fish")
	if zshErr != nil && fishErr != nil {
		testenv.Require(t, "zsh (scripts/debian-packages.txt)", zshErr)
		testenv.Require(t, "fish (scripts/debian-packages.txt)", fishErr)
	}
	u := newCompletionUser(t)
	t.Run("zsh", func(t *testing.T) {
		testenv.Require(t, "zsh (scripts/debian-packages.txt)", zshErr)
		script := u.script(t, "zsh")
		u.shell(t, zsh, "-n", script)
		// Outside a completion widget: compadd prints what it is given.
		const run = `compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }; _files() { print _files; }; compdef() { :; }; source "$1"; shift; words=("$@"); CURRENT=$#; _host`
		for _, tc := range completionCases {
			got := u.shell(t, append([]string{zsh, "-f", "-c", run, "zsh", script}, tc.words...)...)
			if !slices.Equal(got, tc.want) {
				t.Errorf("zsh %q: %q, want %q", tc.words, got, tc.want)
			}
			u.clean(t, tc.words, got)
		}
	})
	t.Run("fish", func(t *testing.T) {
		testenv.Require(t, "fish (scripts/debian-packages.txt)", fishErr)
		script := u.script(t, "fish")
		u.shell(t, fish, "--no-config", "-n", script)
		for _, tc := range completionCases {
			// complete -C completes the command line's last word; a
			// trailing space starts a new one.
			line := strings.Join(tc.words, " ")
			args := []string{fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, line}
			got := u.shell(t, args...)
			for i, g := range got { // fish adds "\tdescription"
				got[i], _, _ = strings.Cut(g, "\t")
			}
			// fish sorts what it offers.
			if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(tc.want))) {
				t.Errorf("fish %q: %q, want %q", tc.words, got, tc.want)
			}
			u.clean(t, tc.words, got)
		}
	})
}
