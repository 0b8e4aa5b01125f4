package process

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/redact"
)

// The Windows rules of command.go run here on every platform; the
// windows-only test (command_windows_test.go) runs them for real.

func TestLookPathWindowsFindsCmdThroughPathExt(t *testing.T) {
	files := map[string]bool{
		`C:\node\npx`:      true, // npm's sh script: never what "npx" means on Windows
		`C:\node\npx.cmd`:  true,
		`C:\node\node.exe`: true,
		`C:\tools\npx.exe`: true,
		`C:\here\only.exe`: true,
	}
	isFile := func(p string) bool { return files[p] }
	for _, tc := range []struct {
		name, path, pathext, want string
	}{
		{"npx", `C:\node;C:\tools`, "", `C:\node\npx.cmd`},
		{"npx", `C:\tools;C:\node`, "", `C:\tools\npx.exe`},
		{"npx", `C:\node\;C:\tools`, ".EXE;.CMD", `C:\node\npx.cmd`},
		{"npx", `"C:\node"`, ".exe;.cmd", `C:\node\npx.cmd`},
		{"npx.cmd", `C:\tools;C:\node`, "", `C:\node\npx.cmd`},
		{"node", `C:\node`, ".COM;.EXE;.BAT;.CMD", `C:\node\node.exe`},
	} {
		got, err := lookPathWindows(tc.name, tc.path, tc.pathext, isFile)
		if err != nil || got != tc.want {
			t.Errorf("lookPathWindows(%q, %q, %q) = %q, %v; want %q", tc.name, tc.path, tc.pathext, got, err, tc.want)
		}
	}
	// Relative PATH entries (the current directory) are never searched.
	files[`.\only.exe`], files[`only.exe`] = true, true
	if got, err := lookPathWindows("only", `.;here;`, "", isFile); err == nil {
		t.Errorf("found %q through a relative PATH entry", got)
	} else if !strings.Contains(err.Error(), `"only"`) || !strings.Contains(err.Error(), ".CMD") {
		t.Errorf("not-found error does not name the command and the extensions: %v", err)
	}
}

func TestEnvValueIgnoresCase(t *testing.T) {
	if v, ok := envValue(map[string]string{"Path": `C:\x`}, "PATH"); !ok || v != `C:\x` {
		t.Errorf("envValue(Path) = %q, %v", v, ok)
	}
	if _, ok := envValue(map[string]string{"PATHX": "y"}, "PATH"); ok {
		t.Error("PATHX matched PATH")
	}
}

func TestBatchCommandLineQuotesWhatCmdInterprets(t *testing.T) {
	const comspec, script = `C:\Windows\System32\cmd.exe`, `C:\Program Files\nodejs\npx.cmd`
	line, err := batchCommandLine(comspec, script, []string{
		"-y", "@modelcontextprotocol/server-memory", "https://x.example/mcp?a=1&b=2",
		"two words", "", `C:\my dir\`, `C:\dir\`, "a|b", "<in>", "^", "(x)", "k=v", "!bang!",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `"C:\Windows\System32\cmd.exe" /d /v:off /s /c ""C:\Program Files\nodejs\npx.cmd"` +
		` -y @modelcontextprotocol/server-memory "https://x.example/mcp?a=1&b=2"` +
		` "two words" "" "C:\my dir\\" C:\dir\ "a|b" "<in>" "^" "(x)" "k=v" "!bang!""`
	if line != want {
		t.Errorf("command line\n got %s\nwant %s", line, want)
	}
	// Outside double quotes no cmd.exe metacharacter is left.
	inner := strings.TrimSuffix(strings.SplitN(line, "/c \"", 2)[1], `"`)
	quoted := false
	for _, c := range inner {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if !quoted && strings.ContainsRune("&|<>^()=,;!", c) {
			t.Errorf("%q outside quotes in %s", c, inner)
		}
	}
}

func TestBatchCommandLineRefusesWhatCmdCannotPass(t *testing.T) {
	redact.Register("sk-live-0123456789abcdef")
	for _, tc := range []struct {
		arg, why string
	}{
		{"50%", "%"},
		{"%PATH%", "%"},
		{`say "hi"`, `"`},
		{"a\nb", "line break"},
		{"tok=sk-live-0123456789abcdef%", "%"},
	} {
		_, err := batchCommandLine(`C:\cmd.exe`, `C:\n\npx.cmd`, []string{"-y", tc.arg})
		if err == nil {
			t.Errorf("argument %q was accepted", tc.arg)
			continue
		}
		msg := err.Error()
		for _, want := range []string{`C:\n\npx.cmd`, "argument 2", "cmd.exe", tc.why} {
			if !strings.Contains(msg, want) {
				t.Errorf("error for %q lacks %q: %s", tc.arg, want, msg)
			}
		}
		if strings.Contains(msg, "sk-live-0123456789abcdef") {
			t.Errorf("error shows a secret: %s", msg)
		}
	}
	if _, err := batchCommandLine(`C:\cmd.exe`, `C:\100%\x.cmd`, nil); err == nil {
		t.Error("a script path with % was accepted")
	}
}

func TestIsBatchFile(t *testing.T) {
	for p, want := range map[string]bool{`C:\x\npx.cmd`: true, `run.BAT`: true, `node.exe`: false, `x.cmd.exe`: false, `cmd`: false} {
		if isBatchFile(p) != want {
			t.Errorf("isBatchFile(%q) = %v", p, !want)
		}
	}
}
