//go:build windows

package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/session"
)

// cmdServer writes wrap.cmd, a batch file that records its arguments and
// runs this test binary as the stdio server, and returns options that name
// it the way a Windows user would: "wrap", found through PATH and PATHEXT.
func cmdServer(t *testing.T, args ...string) (session.Options, string) {
	t.Helper()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argsFile := filepath.Join(dir, "args.txt")
	script := "@echo off\r\necho %*> \"" + argsFile + "\"\r\n\"" + exe + "\" %*\r\n"
	if err := os.WriteFile(filepath.Join(dir, "wrap.cmd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	o := stdioOptions(t, map[string]string{
		"Path":    dir + ";" + os.Getenv("PATH"),
		"PATHEXT": ".COM;.EXE;.BAT;.CMD",
	})
	o.Command, o.Args = "wrap", args
	return o, argsFile
}

// TestStdioCommandFindsCmdFile starts a server written as "wrap" whose
// program is wrap.cmd, with arguments cmd.exe would otherwise interpret: the
// session connects and the batch file sees each argument whole.
func TestStdioCommandFindsCmdFile(t *testing.T) {
	o, argsFile := cmdServer(t, "-y", "https://x.example/mcp?a=1&b=2", "two words")
	s, err := session.Connect(context.Background(), o)
	if err != nil {
		t.Fatalf("connect through wrap.cmd: %v", err)
	}
	defer s.Close()
	if len(s.Tools()) == 0 {
		t.Error("no tools through wrap.cmd")
	}
	b, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(b)), `-y "https://x.example/mcp?a=1&b=2" "two words"`; got != want {
		t.Errorf("the batch file saw %s, want %s", got, want)
	}
}

// TestStdioCommandRefusesPercentForCmdFile: an argument cmd.exe would
// expand is refused before anything runs, with the server and the argument
// named.
func TestStdioCommandRefusesPercentForCmdFile(t *testing.T) {
	o, argsFile := cmdServer(t, "--limit", "50%")
	_, err := session.Connect(context.Background(), o)
	if err == nil {
		t.Fatal("connected with an argument cmd.exe would expand")
	}
	for _, want := range []string{`server "local"`, "wrap.cmd", "argument 2", "%"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if _, err := os.Stat(argsFile); err == nil {
		t.Error("the batch file ran")
	}
}

// TestStdioCommandNotFoundSaysWhere: a name no PATH directory has is an
// error naming it, not os/exec's bare one.
func TestStdioCommandNotFoundSaysWhere(t *testing.T) {
	o, _ := cmdServer(t)
	o.Command = "no-such-server-xyz"
	_, err := session.Connect(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), `"no-such-server-xyz"`) || !strings.Contains(err.Error(), "PATH") {
		t.Errorf("connect to a missing command: %v", err)
	}
}
