//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"testing"
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
}
