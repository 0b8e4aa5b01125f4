//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"testing"
)

// BenchmarkStartTrue starts /bin/true directly and through the launcher
// under the default and strict policies: the sandbox's start-up cost
// (the goal is at most +5 ms). The launcher is this test binary, or the
// binary SANDBOX_BENCH_LAUNCHER names (go build -o /tmp/host ./cmd/host
// measures the host itself, as docs/SANDBOX.md does).
func BenchmarkStartTrue(b *testing.B) {
	if abi, reason := landlockABI(); abi == abiNoKernel {
		b.Skip(reason)
	}
	launcher := os.Getenv("SANDBOX_BENCH_LAUNCHER")
	if launcher == "" {
		launcher, _ = os.Executable()
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
			if p != nil {
				eff, err := Resolve(*p, Context{Home: home, Cwd: cwd, TempDir: tmp, Command: truePath})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Wrap(cmd, eff, launcher); err != nil {
					b.Fatal(err)
				}
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	b.Run("direct", func(b *testing.B) { run(b, nil) })
	b.Run("default", func(b *testing.B) { run(b, &Policy{}) })
	b.Run("strict", func(b *testing.B) { run(b, &Policy{Base: BaseStrict}) })
}
