//go:build unix

package cputime

import (
	"os/exec"
	"testing"
)

// Work shows up as CPU time.
func TestProcessGrows(t *testing.T) {
	before := Process()
	x := 0
	for i := 0; Process() == before && i < 1e9; i++ {
		x += i
	}
	if Process() <= before {
		t.Fatalf("CPU time did not grow (%v -> %v, %d)", before, Process(), x)
	}
}

// A child's work shows up in Children once it has been waited for, and
// not in Process.
func TestChildrenGrows(t *testing.T) {
	before := Children()
	for i := 0; Children() == before && i < 20; i++ {
		cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done")
		if err := cmd.Run(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	if Children() <= before {
		t.Fatalf("children's CPU time did not grow (%v -> %v)", before, Children())
	}
}
