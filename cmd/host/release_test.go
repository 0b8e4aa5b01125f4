package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runHost runs host with args and returns stdout, stderr and the exit code.
func runHost(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// A binary built with make release's -ldflags prints the stamped version,
// commit and date.
func TestStampedVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "host")
	ldflags := "-X main.version=v9.8.7 -X main.commit=0123456789abcdef0123 -X main.date=2026-11-27T05:00:00Z"
	build := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "host v9.8.7 (0123456789ab, 2026-11-27T05:00:00Z) go"; !strings.HasPrefix(string(out), want) {
		t.Errorf("host --version = %q, want it to start with %q", out, want)
	}
}

// Every shell gets a script naming the commands, the mcp subcommands
// and import's sources; the mcp subcommands are the ones runMCP knows.
func TestCompletion(t *testing.T) {
	for _, shell := range completionShells {
		out, errOut, code := runHost("completion", shell)
		if code != 0 {
			t.Fatalf("completion %s: code %d: %s", shell, code, errOut)
		}
		for _, want := range []string{"completion", "import", "claude-code", "gemini", "powershell"} {
			if !strings.Contains(out, want) {
				t.Errorf("the %s script lacks %q", shell, want)
			}
		}
	}
	if _, _, code := runHost("completion", "tcsh"); code != exitUsage {
		t.Errorf("completion tcsh: code %d, want %d", code, exitUsage)
	}
	bash, _, _ := runHost("completion", "bash")
	_, line, _ := strings.Cut(bash, `= mcp ]; then words="`)
	line, _, _ = strings.Cut(line, `"`)
	if got, want := strings.Fields(line), keys((&cli{}).commands()); !slices.Equal(got, want) {
		t.Errorf("the bash script completes mcp with %v, want %v", got, want)
	}
	// bash runs its script: "host mcp im<TAB>" completes to import.
	if _, err := exec.LookPath("bash"); err == nil {
		script, _, _ := runHost("completion", "bash")
		f := filepath.Join(t.TempDir(), "c.bash")
		if err := os.WriteFile(f, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("bash", "-c", `source "$1"; COMP_WORDS=(host mcp im); COMP_CWORD=2; _host; echo "${COMPREPLY[@]}"; COMP_WORDS=(host mcp import --from cod); COMP_CWORD=4; _host; echo "${COMPREPLY[@]}"`, "bash", f).CombinedOutput()
		if err != nil || string(out) != "import\ncodex\n" {
			t.Errorf("bash completion: %q, %v", out, err)
		}
	}
}
