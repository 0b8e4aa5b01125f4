//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// BenchmarkStartTrue starts /bin/true directly and under the default and
// strict policies, resolving the policy each time as the host does: the
// sandbox's start-up cost (the goal is at most +5 ms).
func BenchmarkStartTrue(b *testing.B) {
	if abi, reason := landlockABI(); abi == abiNoKernel {
		b.Skip(reason)
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip(err)
	}
	home, _ := os.UserHomeDir()
	cwd, tmp := b.TempDir(), b.TempDir()
	run := func(b *testing.B, p *Policy) {
		b.Helper()
		for b.Loop() {
			cmd := exec.Command(truePath)
			start := cmd.Start
			if p != nil {
				eff, err := Resolve(*p, Context{Home: home, Cwd: cwd, TempDir: tmp, Command: truePath})
				if err != nil {
					b.Fatal(err)
				}
				if _, start, err = Wrap(cmd, eff); err != nil {
					b.Fatal(err)
				}
			}
			if out, err := run(cmd, start); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	b.Run("direct", func(b *testing.B) { run(b, nil) })
	b.Run("default", func(b *testing.B) { run(b, &Policy{}) })
	b.Run("strict", func(b *testing.B) { run(b, &Policy{Base: BaseStrict}) })
	// A repository as its cwd: through host-confine, its hooks, config,
	// .vscode and .envrc bound read-only.
	helper, err := buildHelper()
	if err != nil {
		b.Fatalf("go build ./cmd/host-confine: %v", err)
	}
	useHelper(b, helper, "")
	for _, d := range []string{".git/hooks", ".vscode"} {
		if err := os.MkdirAll(filepath.Join(cwd, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", ".envrc"} {
		if err := os.WriteFile(filepath.Join(cwd, f), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("default-repository", func(b *testing.B) { run(b, &Policy{}) })
}

// BenchmarkLayers times each layer's own work in a sandboxed start under
// the default policy: resolving the policy (reads by grant, the words),
// building the Landlock rules and ruleset, and assembling the seccomp
// filter with the supervisor's connect rule. Loading the filter and the
// thread's end are in BenchmarkStartTrue's difference only.
func BenchmarkLayers(b *testing.B) {
	if abi, reason := landlockABI(); abi == abiNoKernel {
		b.Skip(reason)
	}
	home, _ := os.UserHomeDir()
	ctx := Context{Home: home, Cwd: b.TempDir(), TempDir: b.TempDir(), Command: "/bin/true"}
	eff, err := Resolve(Policy{}, ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("resolve", func(b *testing.B) {
		for b.Loop() {
			if _, err := Resolve(Policy{}, ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("landlock", func(b *testing.B) {
		for b.Loop() {
			rules, err := fsRules(eff)
			if err != nil {
				b.Fatal(err)
			}
			fd, _, err := landlock.V11.BestEffort().NewRulesetFD(rules...)
			if err != nil {
				b.Fatal(err)
			}
			unix.Close(fd)
		}
	})
	b.Run("seccomp", func(b *testing.B) {
		for b.Loop() {
			f := serverFilter(filterOptions{startTID: 1, supervised: true})
			if _, err := f.Policy.Assemble(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
